package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Mailroom settings (environment variables) the SMTP-relay integration tests run with, on WildFly
 * ({@link ItEnvironment}) and on Open Liberty ({@link LibertyEnvironment}) alike: test-sized retry policies, probes and
 * sweeps, so a scenario body means the same on both servers.
 */
public final class ItSettings {

    private ItSettings() {
    }

    /** The SMTP provider against a loopback relay on {@code port}. */
    public static Map<String, String> smtp(int port) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_PROVIDER", "smtp");
        env.put("MAILROOM_SMTP_HOST", "127.0.0.1");
        env.put("MAILROOM_SMTP_PORT", Integer.toString(port));
        // short enough that a relay answering after it (UnknownSendSmtpIT) costs seconds, long
        // enough that a loaded loopback relay still answers in time
        env.put("MAILROOM_SMTP_READ_TIMEOUT_MS", Long.toString(ItEnvironment.SMTP_READ_TIMEOUT.toMillis()));
        // These executions prove what happens to single jobs (retries, dead letters, redrives of an outage's
        // dead letters): a breaker that opened on their scripted failures would keep the jobs waiting
        // instead. Breakers are proven in their own execution (ItEnvironment.PROFILE_BREAKERS sets its own volume).
        env.put("MAILROOM_BREAKER_REQUEST_VOLUME", "1000000");
        return env;
    }

    /**
     * Alerts to {@code alertsUrl}, test-sized policies, sweeps, probes and watches, the webhook profile, and a
     * templates directory under {@code dir} holding the broken template {@link ItEnvironment#BROKEN_TEMPLATE_ID}.
     */
    public static Map<String, String> operations(String alertsUrl, Path dir) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_ALERTS_WEBHOOK_URL", alertsUrl);
        env.put("MAILROOM_ALERTS_GROUP_WAIT", "1s");
        env.put("MAILROOM_ALERTS_GROUP_INTERVAL", "1s");
        env.put("MAILROOM_ALERTS_RETRY_INITIAL_BACKOFF", "500ms");
        env.put("MAILROOM_ALERTS_RETRY_MAX_BACKOFF", "2s");
        env.put("MAILROOM_ALERTS_BURST_COUNT", "100");
        // test-sized retry policy: the defaults wait minutes to hours for a soft bounce
        env.put("MAILROOM_POLICY_DEFAULT_SOFT_BOUNCE_DELAYS", "1s,2s,3s");
        env.put("MAILROOM_POLICY_DEFAULT_INTERNAL_DELAYS", "1s");
        // the bulk queue has a policy of its own: one quick transient retry
        env.put("MAILROOM_POLICY_MAIL_SEND_BULK_TRANSIENT_DELAYS", "1s");
        env.put("MAILROOM_POLICY_MAIL_SEND_BULK_TRANSIENT_MAX_RETRIES", "1");
        // an ordering key whose head is dead-lettered on mail.send is held (ConsoleBrowserIT releases one)
        env.put("MAILROOM_ORDERING_AFTER_DEAD_LETTER_MAIL_SEND", "hold");
        env.put("MAILROOM_DEADLETTER_SWEEP_INTERVAL", "PT2S");
        env.put("MAILROOM_DEADLETTER_MONITOR_INTERVAL", "PT1S");
        // a retention pass every 2 s, not every minute: it removes nothing until a test moves the clock
        env.put("MAILROOM_JOBS_RETENTION_INTERVAL", "PT2S");
        env.put("MAILROOM_TESTING_CLOCK_CONTROL", "true");
        // stop the line: a probe every second; a dead-letter-rate pause restarts after seconds, not a
        // minute; the bulk queue's breaker activates after 20 deliveries (StopTheLineIT)
        env.put("MAILROOM_STOP_THE_LINE_PROBE_INTERVAL", "PT1S");
        env.put("MAILROOM_STOP_THE_LINE_DEAD_LETTER_RATE_DEFAULT_RESTART_AFTER", "PT5S");
        env.put("MAILROOM_STOP_THE_LINE_DEAD_LETTER_RATE_MAIL_SEND_BULK_ACTIVATION_THRESHOLD", "20");
        env.put("MAILROOM_STOP_THE_LINE_DEAD_LETTER_RATE_MAIL_SEND_BULK_RESTART_AFTER", "PT3S");
        env.put("MAILROOM_WEBHOOKS_GENERIC_SECRET", ItEnvironment.WEBHOOK_SECRET);
        // the reconciliation's watch (silent jobs, bounce/complaint rates) every 2 s, not every minute
        env.put("MAILROOM_RECONCILE_WATCH_INTERVAL", "PT2S");
        env.put("MAILROOM_WEBHOOKS_MAX_BYTES", Integer.toString(ItEnvironment.WEBHOOK_MAX_BYTES));
        Path templates = dir.resolve("templates");
        try {
            Files.createDirectories(templates);
            Files.writeString(templates.resolve(ItEnvironment.BROKEN_TEMPLATE_ID + ".json"), "{ this is not json");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        env.put("MAILROOM_TEMPLATES_DIR", templates.toString());
        return env;
    }
}
