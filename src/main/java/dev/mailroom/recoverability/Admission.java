package dev.mailroom.recoverability;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link AdmissionPolicy#decide} answers for a delivery that came up for sending: the only ways in.
 * Only {@link Proceed} leads to a provider call (after the idempotency claim, {@link ClaimDecision});
 * every other answer is final for the delivery and is recorded by whoever carries it out.
 */
public sealed interface Admission {

    /** One line for the job's timeline and the log. */
    String describe();

    /** The job itself is wrong: dead-letter it as {@code poison} with its bytes. */
    record Poison(String reason, String detail) implements Admission {
        public Poison {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String describe() {
            return "poison: " + reason + (detail == null ? "" : ": " + detail);
        }
    }

    /** The job already reached a final state (a redelivery after its outcome was committed): ignore it. */
    record AlreadyFinished(String state) implements Admission {
        @Override
        public String describe() {
            return "job is already " + state + "; not sent again";
        }
    }

    /** Another JMS message with the same message_id owns the job: this one is a duplicate, ignore it. */
    record DuplicateMessage() implements Admission {
        @Override
        public String describe() {
            return "another JMS message owns the job";
        }
    }

    /**
     * The last attempt passed its point of no return and its worker died, and its provider cannot drop
     * a duplicate: the job ends {@code unknown}, an operator decides (mark as sent, or send again).
     */
    record Unknown(int attemptNumber, String provider) implements Admission {
        @Override
        public String describe() {
            return "attempt " + attemptNumber + " through " + provider + " passed its point of no return and its worker"
                    + " died; " + provider + " cannot drop a duplicate, so it is not sent again: an operator marks it"
                    + " as sent or sends it again";
        }
    }

    /**
     * Past its validity window, or its window ends before its send time ({@code sendAt}, null when that is not why):
     * discarded with a record, never sent late.
     */
    record Expired(Instant expiresAt, Instant sendAt) implements Admission {
        public Expired(Instant expiresAt) {
            this(expiresAt, null);
        }

        @Override
        public String describe() {
            return sendAt == null ? "expired: validity window ended at " + expiresAt + "; never sent late"
                    : "expired: validity window ends at " + expiresAt + ", before its send time " + sendAt
                    + "; never sent late";
        }
    }

    /** Its send time is ahead: it waits on the broker until {@code sendAt}, before any claim or attempt. */
    record Scheduled(Instant sendAt) implements Admission {
        public Scheduled {
            Objects.requireNonNull(sendAt, "sendAt");
        }

        @Override
        public String describe() {
            return "scheduled: waits on the broker until its send time " + sendAt;
        }
    }

    /** The provider is slowed down further than a short pause: the delivery goes back to the broker for {@code delay}. */
    record PutBack(Duration delay) implements Admission {
        public PutBack {
            Objects.requireNonNull(delay, "delay");
        }

        @Override
        public String describe() {
            return "provider rate limit: put back for " + delay.toString().substring(2).toLowerCase();
        }
    }

    /** Admit it: claim the idempotency key, then start an attempt. */
    record Proceed() implements Admission {
        @Override
        public String describe() {
            return "admitted";
        }
    }
}
