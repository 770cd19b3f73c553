package dev.mailroom.recoverability;

import dev.mailroom.provider.MailProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;

/**
 * The recoverability core's parts, built once from configuration: the provider mapping tables
 * ({@code mailroom.recoverability.mappings-file}, else the shipped table), each send queue's policy
 * ({@code mailroom.policy.*}) and the active provider's rate limiter ({@code mailroom.rate-limit.*}).
 */
@ApplicationScoped
public class RecoverabilityComponents {

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
    Policies policies(Config config) {
        return new Policies(config);
    }

    @Produces
    @Singleton
    AimdRateLimiter rateLimiter(Config config, MailProvider provider) {
        return new AimdRateLimiter(AimdRateLimiter.Settings.forProvider(provider.name(),
                key -> config.getOptionalValue(key, String.class)));
    }

    /** Each send queue's {@link RetryPolicy}, read once per queue. */
    public static final class Policies {
        private final Config config;
        private final Map<String, RetryPolicy> byQueue = new ConcurrentHashMap<>();

        Policies(Config config) {
            this.config = config;
        }

        public RetryPolicy forQueue(String queue) {
            return byQueue.computeIfAbsent(queue,
                    q -> RetryPolicy.forQueue(q, key -> config.getOptionalValue(key, String.class)));
        }
    }
}
