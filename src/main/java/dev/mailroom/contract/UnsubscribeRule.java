package dev.mailroom.contract;

/**
 * Whether a job may go out without {@code unsubscribe}: bulk mail without a one-click unsubscribe is refused by the
 * large mailbox providers, so a queue that requires one refuses such a job as poison ({@link
 * RejectReason#missing_unsubscribe}) instead of sending mail that will be junked. Which queues require it is the
 * server's setting ({@value #SETTING}); this is the decision alone.
 */
public final class UnsubscribeRule {

    /** The setting: on (the default) for {@value #BULK_QUEUE}; {@code <SETTING>.<queue>} for any queue. */
    public static final String SETTING = "mailroom.bulk.require-unsubscribe";
    /** The queue that requires an unsubscribe unless told otherwise. */
    public static final String BULK_QUEUE = "mail.send.bulk";

    private UnsubscribeRule() {
    }

    /** The decision on one job. */
    public sealed interface Decision {
    }

    /** The job may go out. */
    public record Allowed() implements Decision {
    }

    /** The job is refused; {@code violation} is its detail, {@code <path>: <what>} like any contract violation. */
    public record Refused(RejectReason reason, String violation) implements Decision {
    }

    /** Whether {@code queue} requires an unsubscribe when nothing is configured: only {@value #BULK_QUEUE}. */
    public static boolean requiredByDefault(String queue) {
        return BULK_QUEUE.equals(queue);
    }

    /**
     * @param queue    the send queue the job arrived on
     * @param required whether that queue requires an unsubscribe
     * @param present  whether the job carries {@code unsubscribe}
     */
    public static Decision decide(String queue, boolean required, boolean present) {
        if (!required || present) {
            return new Allowed();
        }
        return new Refused(RejectReason.missing_unsubscribe, "/unsubscribe: is required on the bulk queue " + queue
                + " (give unsubscribe.url, an https URL that unsubscribes on a POST, RFC 8058); " + SETTING
                + "." + queue + "=false turns this off");
    }
}
