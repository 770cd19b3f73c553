package dev.mailroom.provider.registry;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.http.HttpApiProvider;
import dev.mailroom.provider.smtp.SmtpProvider;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Which providers exist and which send queue uses which, in order. A queue's chain is
 * {@code mailroom.providers.<queue>} (e.g. {@code relay-a,relay-b}), else the one active provider
 * ({@code mailroom.provider}). A name in a chain is either the active provider's name ({@code smtp},
 * {@code http}, {@code sandbox}), or an instance with its own settings: {@code
 * mailroom.provider.<name>.kind} = smtp|http and the kind's keys under {@code mailroom.provider.<name>.}
 * ({@code host}, {@code port}, ... / {@code base-url}, {@code api-key}, ...), each falling back to the
 * kind's own key ({@code mailroom.smtp.host}). Built once at start; a name nobody configured stops the
 * deployment with the key to set.
 */
@ApplicationScoped
public class ProviderRegistry {

    private static final Logger LOG = Logger.getLogger(ProviderRegistry.class.getName());

    /** One configured provider instance. */
    public record Entry(String name, String kind, MailProvider provider) {
    }

    @Inject
    MailroomConfig mailroom;
    @Inject
    Config config;
    @Inject
    MailProvider active;
    @Inject
    Clock clock;

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Map<String, List<String>> chains = new LinkedHashMap<>();

    @PostConstruct
    void build() {
        entries.put(active.name(), new Entry(active.name(), active.name(), active));
        for (String queue : mailroom.queues()) {
            List<String> chain = ProviderProducer.text(config, "mailroom.providers." + queue)
                    .map(v -> Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList())
                    .filter(l -> !l.isEmpty())
                    .orElse(List.of(active.name()));
            for (String name : chain) {
                entries.computeIfAbsent(name, this::instance);
            }
            chains.put(queue, List.copyOf(chain));
        }
        LOG.info(() -> "provider chains: " + chains);
    }

    private Entry instance(String name) {
        String prefix = "mailroom.provider." + name + ".";
        String kind = ProviderProducer.text(config, prefix + "kind").map(k -> k.toLowerCase(Locale.ROOT))
                .orElseThrow(() -> new IllegalStateException("provider '" + name + "' is named in a chain"
                        + " (mailroom.providers.<queue>) but " + prefix + "kind is not set (smtp or http)"));
        MailProvider p = switch (kind) {
            case "smtp" -> new SmtpProvider(ProviderProducer.smtpSettings(
                    key -> ProviderProducer.text(config, prefix + key)
                            .or(() -> ProviderProducer.text(config, "mailroom.smtp." + key))), clock);
            case "http" -> new HttpApiProvider(ProviderProducer.httpSettings(
                    key -> ProviderProducer.text(config, prefix + key)
                            .or(() -> ProviderProducer.text(config, "mailroom.http." + key))), clock);
            default -> throw new IllegalStateException(prefix + "kind must be smtp or http, not '" + kind + "'");
        };
        return new Entry(name, kind, new NamedProvider(name, p));
    }

    /** The providers of {@code queue}, in the order a job tries them; the active provider for a queue not configured. */
    public List<String> chain(String queue) {
        return chains.getOrDefault(queue, List.of(active.name()));
    }

    public Optional<Entry> entry(String name) {
        return Optional.ofNullable(entries.get(name));
    }

    /** Every configured provider instance, the active one first. */
    public Collection<Entry> entries() {
        return Collections.unmodifiableCollection(entries.values());
    }
}
