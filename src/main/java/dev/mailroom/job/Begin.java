package dev.mailroom.job;

/**
 * What the ledger answered when a job came up for sending. Only {@link Proceed} leads to a provider
 * call; every other answer is final for this delivery, already recorded, and acknowledges it.
 */
public sealed interface Begin {

    long jobId();

    /**
     * Send now: attempt {@code attemptNumber} is recorded as started.
     *
     * @param expiresAt the end of the job's validity window, or null for none
     */
    record Proceed(long jobId, long attemptId, int attemptNumber, java.time.Instant expiresAt) implements Begin { }

    /** The job already reached {@code state} (a redelivery after the outcome was committed). */
    record AlreadyFinished(long jobId, JobState state) implements Begin { }

    /** Another JMS message with the same message_id owns this unfinished job. */
    record DuplicateMessage(long jobId) implements Begin { }

    /** The idempotency key was claimed by another job: never sent twice. */
    record DuplicateKey(long jobId, long ownerJobId) implements Begin { }

    /** Past its validity window: discarded with a record, never sent late. */
    record Expired(long jobId) implements Begin { }

    /**
     * No rate-limit permit: the delivery goes back to the broker for {@code delay}, before any claim or
     * attempt; the caller schedules the copy and records it with {@link JobLedger#deferred}.
     */
    record PutBack(long jobId, java.time.Duration delay) implements Begin { }

    /** The last attempt passed its point of no return and its worker died; the provider cannot dedupe. */
    record Ambiguous(long jobId) implements Begin { }
}
