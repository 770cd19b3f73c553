package dev.mailroom.provider.registry;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.InvalidSetting;
import dev.mailroom.platform.settings.SettingsReader;
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
import java.util.Set;
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
public class ProviderRegistry implements CheckedAtBoot {

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

    private SettingsReader settings;

    @PostConstruct
    void build() {
        settings = new SettingsReader(key -> config.getOptionalValue(key, String.class));
        entries.put(active.name(), new Entry(active.name(), active.name(), active));
        for (String queue : mailroom.queues()) {
            List<String> chain = settings.find("mailroom.providers." + queue).map(SettingsReader.Value::list)
                    .filter(l -> !l.isEmpty())
                    .orElse(List.of(active.name()));
            for (String name : chain) {
                entries.computeIfAbsent(name, n -> instance(n, settings, clock));
            }
            chains.put(queue, List.copyOf(chain));
        }
        LOG.info(() -> "provider chains: " + chains);
    }

    @Override
    public void checkSettings() {
        entries();
    }

    /**
     * The provider instance {@code name} of a chain, from its own keys ({@code mailroom.provider.<name>.*}) falling
     * back to its kind's ({@code mailroom.smtp.*}, {@code mailroom.http.*}).
     */
    public static Entry instance(String name, SettingsReader settings, Clock clock) {
        String prefix = "mailroom.provider." + name + ".";
        String kind = settings.find(prefix + "kind").map(k -> k.oneOf(Set.of("smtp", "http")))
                .orElseThrow(() -> new InvalidSetting("mailroom.providers.<queue>", name, "provider '" + name
                        + "' to be configured: it is named in a chain, so set " + prefix + "kind (smtp or http)"));
        MailProvider p = switch (kind) {
            case "smtp" -> new SmtpProvider(ProviderProducer.smtpSettings(
                    key -> settings.find(prefix + key, "mailroom.smtp." + key)), clock);
            default -> new HttpApiProvider(ProviderProducer.httpSettings(
                    key -> settings.find(prefix + key, "mailroom.http." + key)), clock);
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
