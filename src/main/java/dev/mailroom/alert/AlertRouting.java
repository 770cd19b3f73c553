package dev.mailroom.alert;

import dev.mailroom.alert.AlertEvent.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Which occurrences page and which file a ticket, and what makes a burst: pure data from configuration.
 *
 * <p>A dead letter pages when its reason is in {@code page-reasons}: those are failures of our code or
 * of our knowledge of a provider ({@code handler_error}, {@code unmapped_error}) and hit every job alike.
 * Every other reason files a ticket, whether listed in {@code ticket-reasons} or not: those are data
 * problems of single jobs ({@code manual_review}, {@code permanent_recipient}), and an unknown reason
 * is better seen next morning than dropped. A page list entry wins over a ticket list entry, so
 * promoting a reason to paging needs one key only. The oldest open dead letter passing its age limit
 * and a new unknown provider code page (the first means nobody is looking; the second that the
 * mapping tables are behind); an entry near retention expiry files a ticket (it is days away).
 *
 * <p>A burst, {@code burst.count} dead letters of one (queue, reason) within {@code burst.window},
 * pages whatever the reason: a template missing after a deploy turns every job of a kind into a
 * {@code manual_review} ticket, and a thousand tickets are a page. See {@link BurstDetector}.
 *
 * <p>Attempt outcomes a node knows but could not record ({@code send.LateOutcomes}) raise
 * {@value #OUTCOMES_UNRECORDED} once the oldest has waited longer than {@code unrecorded-after}
 * ({@link UnrecordedOutcomesRule}): long enough that a database outage the line's own alert reports and that
 * heals is over first.
 *
 * <pre>
 * mailroom.alerts.page-reasons   = handler_error,unmapped_error
 * mailroom.alerts.ticket-reasons = manual_review,permanent_recipient,poison,retries_exhausted
 * mailroom.alerts.burst.count    = 50        (1..100000)
 * mailroom.alerts.burst.window   = 5m
 * mailroom.alerts.unrecorded-after = 10m
 * </pre>
 */
public record AlertRouting(Set<String> pageReasons, Set<String> ticketReasons, int burstCount, Duration burstWindow,
        Duration unrecordedAfter) {

    public static final String PAGE_REASONS = AlertConfig.PREFIX + "page-reasons";
    public static final String TICKET_REASONS = AlertConfig.PREFIX + "ticket-reasons";
    public static final String BURST_COUNT = AlertConfig.PREFIX + "burst.count";
    public static final String BURST_WINDOW = AlertConfig.PREFIX + "burst.window";
    public static final String UNRECORDED_AFTER = AlertConfig.PREFIX + "unrecorded-after";

    public static final Set<String> DEFAULT_PAGE_REASONS = Set.of("handler_error", "unmapped_error");
    public static final Set<String> DEFAULT_TICKET_REASONS =
            Set.of("manual_review", "permanent_recipient", "poison", "retries_exhausted");
    public static final int DEFAULT_BURST_COUNT = 50;
    public static final Duration DEFAULT_BURST_WINDOW = Duration.ofMinutes(5);
    public static final Duration DEFAULT_UNRECORDED_AFTER = Duration.ofMinutes(10);
    /** A burst is tracked with one timestamp per counted arrival; this bounds that memory. */
    public static final int MAX_BURST_COUNT = 100_000;

    public static final String DEAD_LETTER_ARRIVED = "DeadLetterArrived";
    public static final String DEAD_LETTER_BURST = "DeadLetterBurst";
    public static final String OLDEST_AGE_EXCEEDED = "DeadLetterOldestAgeExceeded";
    public static final String RETENTION_EXPIRING = "DeadLetterRetentionExpiring";
    public static final String UNKNOWN_PROVIDER_CODE = "UnknownProviderCode";
    public static final String PROVIDER_BREAKER = "ProviderBreaker";
    public static final String SEND_OUTCOME_UNKNOWN = "SendOutcomeUnknown";
    public static final String QUEUE_PAUSED = "QueuePaused";
    public static final String DELIVERY_SILENT = "DeliverySilent";
    public static final String DELIVERY_RATE_EXCEEDED = "DeliveryRateExceeded";
    public static final String OUTCOMES_UNRECORDED = "OutcomesUnrecorded";

    public AlertRouting {
        pageReasons = Set.copyOf(pageReasons);
        ticketReasons = Set.copyOf(ticketReasons);
        if (burstCount < 1 || burstCount > MAX_BURST_COUNT) {
            throw new IllegalArgumentException("burst count must be between 1 and " + MAX_BURST_COUNT + ": " + burstCount);
        }
        Objects.requireNonNull(burstWindow, "burstWindow");
        if (burstWindow.isNegative() || burstWindow.isZero()) {
            throw new IllegalArgumentException("burst window must be positive: " + burstWindow);
        }
        Objects.requireNonNull(unrecordedAfter, "unrecordedAfter");
        if (unrecordedAfter.isNegative() || unrecordedAfter.isZero()) {
            throw new IllegalArgumentException("unrecorded-after must be positive: " + unrecordedAfter);
        }
    }

    public static AlertRouting defaults() {
        return new AlertRouting(DEFAULT_PAGE_REASONS, DEFAULT_TICKET_REASONS, DEFAULT_BURST_COUNT, DEFAULT_BURST_WINDOW,
                DEFAULT_UNRECORDED_AFTER);
    }

    /**
     * @param config a lookup such as MicroProfile Config's {@code k -> config.getOptionalValue(k, String.class)}
     * @throws IllegalArgumentException naming the key of a value that cannot be used
     */
    public static AlertRouting fromConfig(Function<String, Optional<String>> config) {
        AlertConfig c = new AlertConfig(config);
        return new AlertRouting(
                c.reasons(PAGE_REASONS, DEFAULT_PAGE_REASONS),
                c.reasons(TICKET_REASONS, DEFAULT_TICKET_REASONS),
                c.integer(BURST_COUNT, DEFAULT_BURST_COUNT, 1, MAX_BURST_COUNT),
                c.duration(BURST_WINDOW, DEFAULT_BURST_WINDOW),
                c.duration(UNRECORDED_AFTER, DEFAULT_UNRECORDED_AFTER));
    }

    /** How loud {@code event} is. */
    public Severity severityOf(AlertEvent event) {
        return switch (event.kind()) {
            case DEAD_LETTER_ARRIVAL -> pageReasons.contains(event.label(AlertEvent.REASON)) ? Severity.PAGE : Severity.TICKET;
            case OLDEST_AGE_EXCEEDED, UNKNOWN_PROVIDER_CODE, QUEUE_PAUSED -> Severity.PAGE;
            // a provider suspends a sender above its bounce/complaint limits: that stops all mail, so page
            case DELIVERY_RATE_EXCEEDED -> Severity.PAGE;
            // a job without news is not known to have failed: someone checks the provider's webhooks
            case DELIVERY_SILENT -> Severity.TICKET;
            // an operator reconciles it with the provider's records; nothing else is held up by it
            case RETENTION_EXPIRING, SEND_OUTCOME_UNKNOWN -> Severity.TICKET;
            // the worst a stop of that node does is leave its jobs unknown, which an operator settles with the
            // provider's records: none is lost or sent twice, so it waits for working hours
            case OUTCOMES_UNRECORDED -> Severity.TICKET;
            // an open breaker holds the provider's mail back: someone must know; its closing is the good news
            case PROVIDER_BREAKER -> "open".equals(event.label(AlertEvent.STATE)) ? Severity.PAGE : Severity.TICKET;
        };
    }

    /** The alert name of a kind. */
    public static String alertName(Kind kind) {
        return switch (kind) {
            case DEAD_LETTER_ARRIVAL -> DEAD_LETTER_ARRIVED;
            case OLDEST_AGE_EXCEEDED -> OLDEST_AGE_EXCEEDED;
            case RETENTION_EXPIRING -> RETENTION_EXPIRING;
            case UNKNOWN_PROVIDER_CODE -> UNKNOWN_PROVIDER_CODE;
            case PROVIDER_BREAKER -> PROVIDER_BREAKER;
            case SEND_OUTCOME_UNKNOWN -> SEND_OUTCOME_UNKNOWN;
            case QUEUE_PAUSED -> QUEUE_PAUSED;
            case DELIVERY_SILENT -> DELIVERY_SILENT;
            case DELIVERY_RATE_EXCEEDED -> DELIVERY_RATE_EXCEEDED;
            case OUTCOMES_UNRECORDED -> OUTCOMES_UNRECORDED;
        };
    }

    /**
     * The labels that make occurrences of a kind one alert. Dead letters group by (queue, reason), not by
     * error type: one broken deploy throwing three exception types is one problem; the types are
     * listed in the alert. Unknown codes group by (provider, code): each new code is news.
     */
    public static List<String> groupingLabels(Kind kind) {
        return switch (kind) {
            case DEAD_LETTER_ARRIVAL -> List.of(AlertEvent.QUEUE, AlertEvent.REASON);
            case OLDEST_AGE_EXCEEDED, RETENTION_EXPIRING -> List.of(AlertEvent.QUEUE);
            case UNKNOWN_PROVIDER_CODE -> List.of(AlertEvent.PROVIDER, AlertEvent.CODE);
            case PROVIDER_BREAKER -> List.of(AlertEvent.PROVIDER, AlertEvent.STATE);
            case SEND_OUTCOME_UNKNOWN -> List.of(AlertEvent.QUEUE, AlertEvent.PROVIDER);
            case QUEUE_PAUSED -> List.of(AlertEvent.QUEUE, AlertEvent.REASON);
            case DELIVERY_SILENT -> List.of(AlertEvent.QUEUE, AlertEvent.PROVIDER);
            case DELIVERY_RATE_EXCEEDED -> List.of(AlertEvent.QUEUE, AlertEvent.TENANT, AlertEvent.REASON);
            case OUTCOMES_UNRECORDED -> List.of(AlertEvent.INSTANCE);
        };
    }

    /** The event with its alert name, severity and its labels split into group labels and details. */
    public RoutedAlert route(AlertEvent event) {
        Map<String, String> group = new TreeMap<>();
        Map<String, String> details = new TreeMap<>(event.labels());
        for (String name : groupingLabels(event.kind())) {
            String v = details.remove(name);
            if (v != null) {
                group.put(name, v);
            }
        }
        String example = details.remove(AlertEvent.MESSAGE_ID);
        return new RoutedAlert(alertName(event.kind()), severityOf(event), group, details, example,
                title(event.kind(), group), event.summary(), event.at(), 1);
    }

    /** The one page for a burst of (queue, reason) that {@link BurstDetector} found at {@code at}. */
    public RoutedAlert burst(String queue, String reason, Instant at) {
        String text = "Burst of dead letters on " + queue + " with reason " + reason + ": at least " + burstCount
                + " within " + AlertConfig.text(burstWindow);
        return new RoutedAlert(DEAD_LETTER_BURST, Severity.PAGE,
                Map.of(AlertEvent.QUEUE, queue, AlertEvent.REASON, reason), Map.of(), null, text, text, at, 1);
    }

    /** A fresh burst tracker with this routing's count and window. */
    public BurstDetector newBurstDetector() {
        return new BurstDetector(burstCount, burstWindow);
    }

    private static String title(Kind kind, Map<String, String> g) {
        return switch (kind) {
            case DEAD_LETTER_ARRIVAL -> "Dead letter on " + g.getOrDefault(AlertEvent.QUEUE, "?") + " with reason "
                    + g.getOrDefault(AlertEvent.REASON, "?");
            case OLDEST_AGE_EXCEEDED -> "Oldest open dead letter on " + g.getOrDefault(AlertEvent.QUEUE, "?")
                    + " is older than its limit";
            case RETENTION_EXPIRING -> "Open dead letter on " + g.getOrDefault(AlertEvent.QUEUE, "?")
                    + " is close to retention expiry";
            case UNKNOWN_PROVIDER_CODE -> "Provider " + g.getOrDefault(AlertEvent.PROVIDER, "?")
                    + " answered with unknown code " + g.getOrDefault(AlertEvent.CODE, "?");
            case PROVIDER_BREAKER -> "Circuit breaker of provider " + g.getOrDefault(AlertEvent.PROVIDER, "?")
                    + " is " + g.getOrDefault(AlertEvent.STATE, "?");
            case SEND_OUTCOME_UNKNOWN -> "Sends on " + g.getOrDefault(AlertEvent.QUEUE, "?") + " may have reached "
                    + g.getOrDefault(AlertEvent.PROVIDER, "?") + ": unknown, an operator decides";
            case QUEUE_PAUSED -> "Consumers of " + g.getOrDefault(AlertEvent.QUEUE, "?") + " paused: "
                    + g.getOrDefault(AlertEvent.REASON, "?");
            case DELIVERY_SILENT -> "Jobs on " + g.getOrDefault(AlertEvent.QUEUE, "?") + " sent through "
                    + g.getOrDefault(AlertEvent.PROVIDER, "?") + " have had no provider event past the limit";
            case DELIVERY_RATE_EXCEEDED -> "The " + g.getOrDefault(AlertEvent.REASON, "?") + " rate of "
                    + g.getOrDefault(AlertEvent.QUEUE, "?") + " (tenant " + g.getOrDefault(AlertEvent.TENANT, "?")
                    + ") is over its threshold";
            case OUTCOMES_UNRECORDED -> "Attempt outcomes known to " + g.getOrDefault(AlertEvent.INSTANCE, "?")
                    + " are not recorded: do not stop or restart it";
        };
    }
}
