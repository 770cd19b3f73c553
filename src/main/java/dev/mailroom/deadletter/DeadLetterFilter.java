package dev.mailroom.deadletter;

import dev.mailroom.platform.FilterText;
import dev.mailroom.platform.Refused;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which dead letters: the one filter of the list (REST query parameters, the console's form), its groups, and a
 * redrive plan (REST body, JMX, the plan's stored record). A plan made from a list's filter is that filter, so it
 * selects what the list shows (a plan then keeps only the {@code open} ones). Null fields match everything; a dead
 * letter matches when it matches every given field, each by the one rule of its {@link Field}:
 * <ul>
 *   <li>exact: {@code queue}, {@code reason}, {@code failure_class}, {@code error_type}, {@code consumer_version},
 *       {@code status}, {@code provider}, {@code message_id}, {@code fingerprint} (a group's normalised error,
 *       {@link ErrorFingerprint}): values an operator picks or copies, where "close" would select someone else's;</li>
 *   <li>case-insensitive substring: {@code campaign_id}, {@code tenant} (what a person types into the list, and so
 *       what the plan made from it must select too);</li>
 *   <li>{@code recipient}: any recipient of the dead letter's job ({@code job_recipient}) contains it,
 *       case-insensitively;</li>
 *   <li>{@code from} / {@code to}: {@code failed_at} in [from, to);</li>
 *   <li>{@code ids}: the dead letter is one of these (a plan of selected rows).</li>
 * </ul>
 * Text is trimmed and a blank value is no filter. The names are the wire names everywhere (query parameters and
 * JSON), so a field added here is a field of the list, the groups, the plans and JMX at once.
 */
public record DeadLetterFilter(String queue, String reason, String failureClass, String errorType,
                               String consumerVersion, String status, String campaignId, String tenant,
                               String provider, String messageId, String recipient, String fingerprint,
                               Instant from, Instant to, List<Long> ids) {

    /** How a field matches a dead letter. */
    public enum Match { EXACT, CONTAINS, RECIPIENT, FROM, TO, IDS }

    /**
     * What the counts kept on write ({@link DeadLetterCounts}) answer: {@code KEPT}, a key of every count table;
     * {@code WINDOW}, the day and hour tables' buckets; {@code NONE}, the dead letters themselves are read.
     */
    public enum Counted { KEPT, WINDOW, NONE }

    /**
     * The fields: wire name, entity attribute, {@code dead_letter} column, rule, and whether the counts answer it.
     */
    public enum Field {
        QUEUE("queue", "sourceQueue", "source_queue", Match.EXACT, Counted.KEPT),
        REASON("reason", "reason", "reason", Match.EXACT, Counted.KEPT),
        FAILURE_CLASS("failure_class", "failureClass", "failure_class", Match.EXACT, Counted.KEPT),
        ERROR_TYPE("error_type", "errorType", "error_type", Match.EXACT, Counted.KEPT),
        CONSUMER_VERSION("consumer_version", "consumerVersion", "consumer_version", Match.EXACT, Counted.KEPT),
        STATUS("status", "status", "status", Match.EXACT, Counted.KEPT),
        CAMPAIGN_ID("campaign_id", "campaignId", "campaign_id", Match.CONTAINS, Counted.NONE),
        TENANT("tenant", "tenant", "tenant", Match.CONTAINS, Counted.NONE),
        PROVIDER("provider", "provider", "provider", Match.EXACT, Counted.NONE),
        MESSAGE_ID("message_id", "messageId", "message_id", Match.EXACT, Counted.NONE),
        RECIPIENT("recipient", "jobId", "job_id", Match.RECIPIENT, Counted.NONE),
        FINGERPRINT("fingerprint", "errorFingerprint", "error_fingerprint", Match.EXACT, Counted.KEPT),
        FROM("from", "failedAt", "failed_at", Match.FROM, Counted.WINDOW),
        TO("to", "failedAt", "failed_at", Match.TO, Counted.WINDOW),
        IDS("ids", "id", "id", Match.IDS, Counted.NONE);

        /** The name in query parameters and JSON. */
        public final String wireName;
        final String attribute;
        final String column;
        public final Match match;
        final Counted counted;

        Field(String wireName, String attribute, String column, Match match, Counted counted) {
            this.wireName = wireName;
            this.attribute = attribute;
            this.column = column;
            this.match = match;
            this.counted = counted;
        }

        /** This field's value in {@code f} (null: not filtered by it). */
        public Object of(DeadLetterFilter f) {
            return switch (this) {
                case QUEUE -> f.queue;
                case REASON -> f.reason;
                case FAILURE_CLASS -> f.failureClass;
                case ERROR_TYPE -> f.errorType;
                case CONSUMER_VERSION -> f.consumerVersion;
                case STATUS -> f.status;
                case CAMPAIGN_ID -> f.campaignId;
                case TENANT -> f.tenant;
                case PROVIDER -> f.provider;
                case MESSAGE_ID -> f.messageId;
                case RECIPIENT -> f.recipient;
                case FINGERPRINT -> f.fingerprint;
                case FROM -> f.from;
                case TO -> f.to;
                case IDS -> f.ids;
            };
        }
    }

    /** The wire names, in order, for messages and forms. */
    public static final List<String> NAMES = Arrays.stream(Field.values()).map(f -> f.wireName).toList();

    /** The most ids a filter names (a plan of selected rows is at most this big anyway). */
    public static final int MAX_IDS = 10_000;

    /** No filter: every dead letter. */
    public static final DeadLetterFilter ANY = parse(name -> null);

    public DeadLetterFilter {
        queue = FilterText.text(queue);
        reason = FilterText.text(reason);
        failureClass = FilterText.text(failureClass);
        errorType = FilterText.text(errorType);
        consumerVersion = FilterText.text(consumerVersion);
        status = FilterText.text(status);
        campaignId = FilterText.text(campaignId);
        tenant = FilterText.text(tenant);
        provider = FilterText.text(provider);
        messageId = FilterText.text(messageId);
        recipient = FilterText.text(recipient);
        fingerprint = FilterText.text(fingerprint);
        ids = ids == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(ids));
    }

    /**
     * The filter of text values by wire name ({@code value} answers null for a name not given): query parameters,
     * a console's form. A value that cannot be one of its field's is refused ({@link Refused.Invalid}, error
     * {@code invalid_<name>}, the reason starting with the name).
     */
    public static DeadLetterFilter parse(Function<String, String> value) {
        return new DeadLetterFilter(value.apply("queue"), value.apply("reason"), value.apply("failure_class"),
                value.apply("error_type"), value.apply("consumer_version"), value.apply("status"),
                value.apply("campaign_id"), value.apply("tenant"), value.apply("provider"), value.apply("message_id"),
                value.apply("recipient"), value.apply("fingerprint"), FilterText.instant("from", value.apply("from")),
                FilterText.instant("to", value.apply("to")), ids(value.apply("ids"))).checked();
    }

    /** {@link #parse} of a map of wire names to text. */
    public static DeadLetterFilter of(Map<String, String> values) {
        return parse(values::get);
    }

    /**
     * This filter, if every value can match: a known status, a window that is not empty, a list
     * of 1 to {@value #MAX_IDS} ids. Else {@link Refused.Invalid} {@code invalid_<name>} with the reason.
     */
    public DeadLetterFilter checked() {
        if (status != null && Arrays.stream(DeadLetter.Status.values()).noneMatch(s -> s.name().equals(status))) {
            throw invalid("status", "status is one of " + Arrays.toString(DeadLetter.Status.values()) + ", not "
                    + status);
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw invalid("to", "to (" + to + ") must be after from (" + from + ")");
        }
        if (ids != null && (ids.isEmpty() || ids.size() > MAX_IDS || ids.stream().anyMatch(java.util.Objects::isNull))) {
            throw invalid("ids", "ids is a list of 1 to " + MAX_IDS + " dead-letter ids");
        }
        return this;
    }

    /** Whether no field is given (the filter selects every dead letter). */
    public boolean matchesEverything() {
        return Arrays.stream(Field.values()).allMatch(f -> f.of(this) == null);
    }

    /** Whether only what every count kept on write is keyed by narrows it. */
    boolean countedOnly() {
        return Arrays.stream(Field.values()).allMatch(f -> f.counted == Counted.KEPT || f.of(this) == null);
    }

    /** {@link #countedOnly} but for a time window, which the daily and hourly counts answer. */
    boolean windowCountedOnly() {
        return Arrays.stream(Field.values()).allMatch(f -> f.counted != Counted.NONE || f.of(this) == null);
    }

    /** The same filter on {@code queue} instead. */
    public DeadLetterFilter withQueue(String queue) {
        return new DeadLetterFilter(queue, reason, failureClass, errorType, consumerVersion, status, campaignId, tenant,
                provider, messageId, recipient, fingerprint, from, to, ids);
    }

    /** The same filter with {@code status} instead. */
    public DeadLetterFilter withStatus(String status) {
        return new DeadLetterFilter(queue, reason, failureClass, errorType, consumerVersion, status, campaignId, tenant,
                provider, messageId, recipient, fingerprint, from, to, ids);
    }

    /** The same filter over [from, to) instead. */
    public DeadLetterFilter window(Instant from, Instant to) {
        return new DeadLetterFilter(queue, reason, failureClass, errorType, consumerVersion, status, campaignId, tenant,
                provider, messageId, recipient, fingerprint, from, to, ids);
    }

    /** The dead letters with these ids, and no other condition. */
    public static DeadLetterFilter ofIds(List<Long> ids) {
        return ANY.withIds(ids);
    }

    /** The same filter narrowed to {@code ids} instead. */
    public DeadLetterFilter withIds(List<Long> ids) {
        return new DeadLetterFilter(queue, reason, failureClass, errorType, consumerVersion, status, campaignId, tenant,
                provider, messageId, recipient, fingerprint, from, to, ids);
    }

    private static List<Long> ids(String value) {
        if (FilterText.text(value) == null) {
            return null;
        }
        try {
            return Arrays.stream(value.trim().split("[\\s,]+")).map(Long::valueOf).toList();
        } catch (NumberFormatException e) {
            throw invalid("ids", "ids is a comma-separated list of dead-letter ids, not " + value);
        }
    }

    private static Refused invalid(String name, String why) {
        return new Refused.Invalid("invalid_" + name, why);
    }
}
