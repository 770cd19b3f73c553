package dev.mailroom.docs;

import dev.mailroom.alert.AlertDispatchSettings;
import dev.mailroom.alert.AlertDispatcher;
import dev.mailroom.alert.AlertEvent;
import dev.mailroom.alert.AlertRouting;
import dev.mailroom.alert.WebhookSink;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.provider.registry.ProviderRegistry;
import dev.mailroom.recoverability.AimdRateLimiter;
import dev.mailroom.recoverability.CircuitBreaker;
import dev.mailroom.recoverability.RetryPolicy;
import dev.mailroom.reconcile.Verdict;
import dev.mailroom.reconcile.WatchSettings;
import dev.mailroom.reconcile.WebhookProfiles;
import dev.mailroom.stopline.PauseReason;
import dev.mailroom.stopline.StopLineSettings;
import dev.mailroom.redrive.RedriveSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The names the code uses, read from the code itself: configuration keys, the environment variables the server
 * scripts read, metric names (as Prometheus shows them), alert names and the reasons a line is paused.
 *
 * <p>Configuration keys come from four places, so that a key added in any of the usual ways is found: the defaults
 * file ({@code microprofile-config.properties}), {@code @ConfigProperty} names and {@code Config} look-ups in the
 * sources, every {@code "mailroom.*"} string in the sources (a prefix ending in a dot stands for the keys under it),
 * and the keys the settings readers actually ask for when run against a recording look-up (which finds the keys
 * that are put together from a prefix and a suffix). A key naming a queue, provider or instance is asked for with
 * {@code <queue>}, {@code <provider>} and {@code <name>} in its place, as the reference writes it.
 */
final class CodeNames {

    static final Path MAIN = Path.of("src/main/java");
    /** Strings in {@code "mailroom.*"} form that are not configuration keys: the HTTP session's attribute names. */
    private static final Set<String> NOT_KEYS = Set.of("mailroom.user", "mailroom.roles", "mailroom.csrf");
    private static final Pattern LITERAL = Pattern.compile("\"(mailroom\\.[a-z0-9._-]*)\"");
    private static final Pattern CONFIG_PROPERTY = Pattern.compile(
            "@ConfigProperty\\(\\s*name\\s*=\\s*\"([^\"]+)\"|get(?:Optional)?Value\\(\\s*\"([^\"]+)\"");
    /** A meter registered or looked up by name: {@code counter("mailroom.x", ...)}, {@code gauge(...)}, ... */
    private static final Pattern METER = Pattern.compile(
            "\\b(counter|gauge|timer|put\\(values, gauges,)\\(?\\s*\"(mailroom\\.[a-z0-9.]+)\"");
    private static final Pattern ENV = Pattern.compile("\\bMAILROOM_[A-Z0-9_]*[A-Z0-9]\\b");

    private CodeNames() {
    }

    /** Every configuration key the code reads, as described in the class comment. */
    static Set<String> configurationKeys() {
        Set<String> keys = new TreeSet<>();
        Properties defaults = defaults();
        defaults.stringPropertyNames().stream().filter(k -> k.startsWith("mailroom.")).forEach(keys::add);
        Set<String> meters = metrics().values().stream().collect(Collectors.toSet());
        for (String source : sources()) {
            Matcher c = CONFIG_PROPERTY.matcher(source);
            while (c.find()) {
                keys.add(c.group(1) != null ? c.group(1) : c.group(2));
            }
            Matcher l = LITERAL.matcher(source);
            while (l.find()) {
                String k = l.group(1);
                if (!NOT_KEYS.contains(k) && !meters.contains(k)) {
                    keys.add(k);
                }
            }
        }
        keys.addAll(askedByTheSettingsReaders(defaults));
        return keys;
    }

    private static Properties defaults() {
        Properties defaults = new Properties();
        try (var in = Files.newInputStream(Path.of("src/main/resources/META-INF/microprofile-config.properties"))) {
            defaults.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return defaults;
    }

    /**
     * The keys the settings readers ask for: each reader is run against a look-up that records every key and
     * answers what the deployment's defaults file answers, and what makes the reader go on to its further keys (a
     * provider instance's kind, a webhook URL).
     */
    static Set<String> askedByTheSettingsReaders(Properties defaults) {
        Set<String> asked = new TreeSet<>();
        Map<String, String> answers = Map.of(
                "mailroom.provider.<name>.kind", "smtp",
                "mailroom.provider.<http-name>.kind", "http",
                "mailroom.alerts.webhook.url", "http://127.0.0.1:9/",
                "mailroom.webhooks.postmark.password", "p");
        Function<String, Optional<String>> recording = key -> {
            asked.add(key);
            return Optional.ofNullable(answers.get(key))
                    .or(() -> Optional.ofNullable(defaults.getProperty(key)).filter(v -> !v.isBlank()));
        };
        SettingsReader reader = new SettingsReader(recording);
        RetryPolicy.forQueue("<queue>", recording);
        RetryPolicy.forQueue("default", recording);
        CircuitBreaker.Settings.forProvider("<provider>", recording);
        AimdRateLimiter.Settings.forProvider("<provider>", recording);
        ProviderRegistry.instance("<name>", reader, Clock.systemUTC());
        ProviderRegistry.instance("<http-name>", reader, Clock.systemUTC());
        StopLineSettings.read(reader, List.of("<queue>"));
        WatchSettings.read(reader, List.of("mailroom.reconcile.silence-limit.<provider>"));
        AlertRouting.fromConfig(recording);
        AlertDispatchSettings.fromConfig(recording);
        RedriveSettings.read(reader);
        WebhookSink.fromConfig(recording, Clock.systemUTC());
        WebhookProfiles.from(recording, null);
        return asked.stream().map(k -> k.replace("<http-name>", "<name>")).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The {@code MAILROOM_*} variables the server's configuration scripts and the image read. */
    static Set<String> environmentVariables() {
        Set<String> names = new TreeSet<>();
        for (Path root : List.of(Path.of("server-config"), Path.of("docker"))) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile).forEach(f -> {
                    Matcher m = ENV.matcher(read(f));
                    while (m.find()) {
                        names.add(m.group());
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return names;
    }

    /** Prometheus name -> the name the code registers it under (counters end in _total, timers in _seconds). */
    static Map<String, String> metrics() {
        Map<String, String> names = new TreeMap<>();
        for (String source : sources()) {
            Matcher m = METER.matcher(source);
            while (m.find()) {
                String prometheus = m.group(2).replace('.', '_') + switch (m.group(1)) {
                    case "counter" -> "_total";
                    case "timer" -> "_seconds";
                    default -> "";
                };
                names.put(prometheus, m.group(2));
            }
        }
        return names;
    }

    /** Every alert name Mailroom raises: one per kind of occurrence, the burst, and the alert about dropped ones. */
    static Set<String> alertNames() {
        Set<String> names = Arrays.stream(AlertEvent.Kind.values()).map(AlertRouting::alertName)
                .collect(Collectors.toCollection(TreeSet::new));
        names.add(AlertRouting.DEAD_LETTER_BURST);
        names.add(AlertDispatcher.EVENTS_DROPPED);
        return names;
    }

    /**
     * The error codes the API can answer: every lower-case string of the sources that could be one, and the webhook
     * refusals, which are {@code "webhook_"} and a reason's name.
     */
    static Set<String> errorCodes() {
        Set<String> codes = new TreeSet<>();
        Pattern literal = Pattern.compile("\"([a-z][a-z_]*[a-z])\"");
        for (String source : sources()) {
            Matcher m = literal.matcher(source);
            while (m.find()) {
                codes.add(m.group(1));
            }
        }
        for (Verdict.Reason r : Verdict.Reason.values()) {
            codes.add("webhook_" + r.name());
        }
        return codes;
    }

    static Set<String> pausedReasons() {
        return Arrays.stream(PauseReason.values()).map(PauseReason::wireName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<String> sources() {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(f -> f.toString().endsWith(".java")).map(CodeNames::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(f.toString(), e);
        }
    }
}
