package dev.mailroom.job;

/**
 * Where a job stands. {@code received → sending → sent_to_provider} is the send path ({@code scheduled} before it
 * while a job waits for its {@code send_at}); the others are
 * terminal states: every job ends in exactly one an operator can see (some are reached only by later
 * capabilities: webhooks, redrive).
 */
public enum JobState {
    received,
    /** Its {@code send_at} is ahead: a copy of it waits on the broker until then (a scheduled message). */
    scheduled,
    sending,
    /** A failed attempt is followed by a scheduled copy of the job on the broker. */
    retry_scheduled,
    /**
     * An earlier job of its {@code ordering_key} has not ended (or the key is held): its bytes are kept in Mailroom's
     * database, its message acknowledged, until the job before it ends; then a copy goes to its queue.
     */
    waiting_for_key,
    sent_to_provider,
    delivered,
    bounced,
    complained,
    bounced_permanent,
    dead_lettered,
    discarded,
    duplicate_suppressed,
    /** Every recipient is on the tenant's suppression list: not sent, no provider call (docs/delivery-events.md). */
    suppressed,
    /** Sent or not, nobody can tell: the call passed its point of no return and the worker died. */
    unknown,
    /** An operator cancelled it while it was {@code scheduled}: never sent; its copy on the broker is ignored. */
    cancelled;

    /** Whether the send path is over for a job in this state: a redelivery must not send it again. */
    public boolean finished() {
        return this != received && this != scheduled && this != sending && this != retry_scheduled
                && this != waiting_for_key;
    }
}
