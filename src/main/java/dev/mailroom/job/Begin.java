package dev.mailroom.job;

import dev.mailroom.recoverability.SuppressionDecision;

/**
 * What the ledger answered when a job came up for sending. Only {@link Proceed} leads to a provider
 * call; every other answer is final for this delivery, already recorded, and acknowledges it.
 */
public sealed interface Begin {

    long jobId();

    /**
     * Send now: attempt {@code attemptNumber} is recorded as started.
     *
     * @param expiresAt   the end of the job's validity window, or null for none
     * @param irrevocable the attempt was committed past its point of no return with the claim
     *                    ({@link dev.mailroom.provider.MailProvider#irrevocableFromTheStart}): the call's
     *                    checkpoint has nothing left to commit
     * @param unwritten   the admission's timeline entries, when it ran in the delivery's transaction: written with
     *                    the attempt's outcome ({@link UnwrittenEntries})
     */
    record Proceed(long jobId, long attemptId, int attemptNumber, java.time.Instant expiresAt,
                   java.util.List<SuppressionDecision.Withheld> withheld, boolean irrevocable,
                   UnwrittenEntries unwritten) implements Begin {

        public Proceed {
            withheld = withheld == null ? java.util.List.of() : java.util.List.copyOf(withheld);
            unwritten = unwritten == null ? UnwrittenEntries.NONE : unwritten;
        }

        /** Send now, the admission's entries written already. */
        public Proceed(long jobId, long attemptId, int attemptNumber, java.time.Instant expiresAt,
                       java.util.List<SuppressionDecision.Withheld> withheld, boolean irrevocable) {
            this(jobId, attemptId, attemptNumber, expiresAt, withheld, irrevocable, UnwrittenEntries.NONE);
        }

        /** As this one, its admission's {@code entries} left for the attempt's outcome to write. */
        Proceed leaving(java.util.List<JobEvent> entries) {
            return new Proceed(jobId, attemptId, attemptNumber, expiresAt, withheld, irrevocable,
                    UnwrittenEntries.of(entries));
        }

        /** Send now, the point of no return still to be committed by the call's checkpoint. */
        public Proceed(long jobId, long attemptId, int attemptNumber, java.time.Instant expiresAt,
                       java.util.List<SuppressionDecision.Withheld> withheld) {
            this(jobId, attemptId, attemptNumber, expiresAt, withheld, false);
        }

        /** Send to every recipient. */
        public Proceed(long jobId, long attemptId, int attemptNumber, java.time.Instant expiresAt) {
            this(jobId, attemptId, attemptNumber, expiresAt, java.util.List.of());
        }

        /** The {@code job_recipient} positions the provider call leaves out (they are suppressed). */
        public java.util.Set<Integer> withheldPositions() {
            return withheld.stream().map(SuppressionDecision.Withheld::position)
                    .collect(java.util.stream.Collectors.toUnmodifiableSet());
        }
    }

    /** Every recipient is suppressed ({@code withheld}): the job ended {@code suppressed}, no provider call. */
    record Suppressed(long jobId, java.util.List<SuppressionDecision.Withheld> withheld) implements Begin { }

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

    /**
     * Its {@code send_at} is ahead: recorded {@code scheduled}, before any claim or attempt; the caller puts a copy on
     * the broker due after {@code delay} (zero when the time came while it was decided) and records it with
     * {@link JobLedger#scheduled}.
     */
    record Scheduled(long jobId, java.time.Instant sendAt, java.time.Duration delay) implements Begin { }

    /** The last attempt passed its point of no return and its worker died; the provider cannot dedupe. */
    record Ambiguous(long jobId) implements Begin { }
}
