package dev.mailroom.recoverability;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.provider.MailProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;

/**
 * The recoverability core's parts, built once from configuration: the provider mapping tables
 * ({@code mailroom.recoverability.mappings-file}, else the shipped table), each send queue's policy
 * ({@code mailroom.policy.*}) and the active provider's rate limiter ({@code mailroom.rate-limit.*}). All of them are
 * built at deployment ({@link CheckedAtBoot}): a bad mapping file, policy or rate limit stops it.
 */
@ApplicationScoped
public class RecoverabilityComponents implements CheckedAtBoot {

    @Inject
    Instance<FailureClassifier> classifier;
    @Inject
    Instance<Policies> policies;
    @Inject
    Instance<AimdRateLimiter> rateLimiter;

    @Override
    public void checkSettings() {
        classifier.get();
        policies.get().all();
        rateLimiter.get();
    }

    @Produces
    @Singleton
    FailureClassifier classifier(Config config) {
        MappingTables tables = config.getOptionalValue("mailroom.recoverability.mappings-file", String.class)
                .filter(s -> !s.isBlank())
                .map(f -> MappingTables.fromFile(Path.of(f)))
                .orElseGet(MappingTables::fromClasspath);
        Optional<String> httpProfile = config.getOptionalValue("mailroom.http.profile", String.class);
        return new FailureClassifier(tables, httpProfile.map(p -> Map.of("http", p.trim())).orElse(Map.of()));
    }

    @Produces
    @Singleton
    Policies policies(Config config, MailroomConfig mailroom) {
        Policies p = new Policies(config);
        mailroom.queues().forEach(p::forQueue);
        return p;
    }

    @Produces
    @Singleton
    AimdRateLimiter rateLimiter(Config config, MailProvider provider) {
        return new AimdRateLimiter(AimdRateLimiter.Settings.forProvider(provider.name(),
                key -> config.getOptionalValue(key, String.class)));
    }

    /** Each send queue's {@link RetryPolicy}, read once per queue (every configured queue at deployment). */
    public static final class Policies {
        private final Config config;
        private final Map<String, RetryPolicy> byQueue = new ConcurrentHashMap<>();

        Policies(Config config) {
            this.config = config;
        }

        /** The policies read so far: every configured queue's, and {@code default}'s. */
        public Map<String, RetryPolicy> all() {
            forQueue(RetryPolicy.DEFAULT_QUEUE);
            return Map.copyOf(byQueue);
        }

        public RetryPolicy forQueue(String queue) {
            return byQueue.computeIfAbsent(queue,
                    q -> RetryPolicy.forQueue(q, key -> config.getOptionalValue(key, String.class)));
        }
    }
}
