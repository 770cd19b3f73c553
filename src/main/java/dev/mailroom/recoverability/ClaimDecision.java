package dev.mailroom.recoverability;

/** What {@link AdmissionPolicy#claim} answers for a job that wants an idempotency key. */
public sealed interface ClaimDecision {

    /** One line for the timelines. */
    String describe();

    /** The job holds the key (it claimed it now, or on an earlier delivery): send. */
    record Held() implements ClaimDecision {
        @Override
        public String describe() {
            return "holds the idempotency key";
        }
    }

    /**
     * The holder ended without any provider taking the mail: the key moves to this job (recorded on both
     * timelines), which sends.
     */
    record TakeOver(long previousOwnerJobId, String why) implements ClaimDecision {
        @Override
        public String describe() {
            return "takes the idempotency key over from job " + previousOwnerJobId + ": " + why;
        }
    }

    /** The holder keeps the key: this job is {@code duplicate_suppressed}, never sent. */
    record Kept(long ownerJobId, String why) implements ClaimDecision {
        @Override
        public String describe() {
            return "idempotency key already claimed by job " + ownerJobId + " (" + why + ")";
        }
    }
}
