package dev.mailroom.recoverability;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The order of the jobs of one {@code ordering_key} on one queue (docs/job-contract.md "An ordering key"): at the
 * door, whether a job of a key goes now or waits behind the key's head; when a job of a key ends, what happens to the
 * next one. Pure: the ledger gathers the facts under the key's row lock and carries the decision out.
 *
 * <p>A job whose retry is scheduled, whose breaker is open or whose line is stopped has not ended: it is still the
 * head, and the later jobs of its key wait behind it. A head that was dead-lettered (or whose send is {@code unknown})
 * does not block its key forever: the queue's {@link AfterDeadLetter} setting says whether the next one goes
 * ({@code continue}) or the key is held until an operator releases it ({@code hold}).
 */
public final class KeyOrderPolicy {

    /** What a key does when its head is dead-lettered or its send is unknown: a per-queue setting. */
    public enum AfterDeadLetter {
        /** The next job of the key goes (the default: one broken mail does not stop an order's later ones). */
        CONTINUE,
        /** The key is held: its later jobs wait until an operator releases it. */
        HOLD;

        /** The setting's value as written: {@code continue} or {@code hold}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The setting read from its written value; null for a value that is neither. */
        public static AfterDeadLetter fromWireName(String value) {
            for (AfterDeadLetter a : values()) {
                if (a.wireName().equals(value)) {
                    return a;
                }
            }
            return null;
        }
    }

    /** The job states that end a head and let the next job of its key go, whatever the setting. */
    static final Set<String> RELEASING = Set.of("sent_to_provider", "delivered", "bounced", "complained",
            "bounced_permanent", "discarded", "duplicate_suppressed", "suppressed", "cancelled");
    /** The job states that end a head without the mail known to be sent: the setting decides. */
    static final Set<String> FAILED = Set.of("dead_lettered", "unknown");

    private KeyOrderPolicy() {
    }

    // ---------------------------------------------------------------- at the door

    /**
     * The facts about one delivery of a keyed job, read under its key's row lock.
     *
     * @param finished         the job has ended already (a redelivery): the send path's admission ignores it
     * @param waiting          the job is recorded waiting for its key already (a redelivery of its message)
     * @param earlierUnfinished the id of the key's earliest job before this one that has not ended, or null
     * @param heldBecause      why the key is held for this job (a dead-lettered head before it, {@code hold}), or null
     */
    public record Arrival(boolean finished, boolean waiting, Long earlierUnfinished, String heldBecause) {
    }

    /** Where a keyed job stands at the door. */
    public sealed interface Place {
        String describe();
    }

    /** Nothing before it: it takes the send path now. */
    public record Go() implements Place {
        public String describe() {
            return "goes: no earlier job of its key is unfinished";
        }
    }

    /** It waits, recorded, behind the key's head, job {@code head}; it goes when the jobs before it have ended. */
    public record WaitBehind(long head) implements Place {
        public String describe() {
            return "waits behind job " + head + " of its key";
        }
    }

    /** Its key is held after a dead-lettered head: it waits, recorded, until an operator releases the key. */
    public record Held(String reason) implements Place {
        public Held {
            Objects.requireNonNull(reason, "reason");
        }

        public String describe() {
            return "waits: its key is held (" + reason + ")";
        }
    }

    /** It is recorded waiting already: this delivery (a redelivery of its message) is acknowledged, nothing more. */
    public record AlreadyWaiting() implements Place {
        public String describe() {
            return "already waiting for its key";
        }
    }

    public static Place atTheDoor(Arrival a) {
        Objects.requireNonNull(a, "arrival");
        if (a.finished()) {
            return new Go();
        }
        if (a.waiting()) {
            return new AlreadyWaiting();
        }
        if (a.heldBecause() != null) {
            return new Held(a.heldBecause());
        }
        if (a.earlierUnfinished() != null) {
            return new WaitBehind(a.earlierUnfinished());
        }
        return new Go();
    }

    // ---------------------------------------------------------------- when a job ends

    /**
     * The facts about a keyed job after one of its deliveries, read under its key's row lock.
     *
     * @param jobState    the job's state now
     * @param nextWaiting whether the key's first unfinished job is one waiting for its key
     * @param setting     the queue's {@link AfterDeadLetter}
     * @param holdsTheKey whether the key is held after this very job (it ended failed on a {@code hold} queue before)
     */
    public record Ended(String jobState, boolean nextWaiting, AfterDeadLetter setting, boolean holdsTheKey) {
        public Ended {
            Objects.requireNonNull(jobState, "jobState");
            Objects.requireNonNull(setting, "setting");
        }

        /** A job that does not hold its key. */
        public Ended(String jobState, boolean nextWaiting, AfterDeadLetter setting) {
            this(jobState, nextWaiting, setting, false);
        }
    }

    /** What happens to the key after a job of it. */
    public sealed interface Next {
        String describe();
    }

    /** The key's first waiting job goes: a copy of it is published to its queue. */
    public record ReleaseNext() implements Next {
        public String describe() {
            return "the next job of the key goes";
        }
    }

    /** The key is held until an operator releases it: its later jobs wait. */
    public record HoldKey(String reason) implements Next {
        public HoldKey {
            Objects.requireNonNull(reason, "reason");
        }

        public String describe() {
            return "the key is held: " + reason;
        }
    }

    /**
     * The job that held its key has ended after all as sent (an operator marked its {@code unknown} send sent, or its
     * send-again copy was sent): the hold it caused is lifted and the key's first waiting job, if any, goes.
     */
    public record LiftHold() implements Next {
        public String describe() {
            return "the job that held its key is sent after all: the hold is lifted and the next job of the key goes";
        }
    }

    /** Nothing changes for the key. */
    public record Nothing(String why) implements Next {
        public String describe() {
            return "nothing for the key: " + why;
        }
    }

    public static Next afterEnd(Ended e) {
        Objects.requireNonNull(e, "ended");
        boolean failed = FAILED.contains(e.jobState());
        if (!failed && !RELEASING.contains(e.jobState())) {
            return new Nothing("the job is " + e.jobState() + ", still the head of its key");
        }
        if (!failed && e.holdsTheKey()) {
            return new LiftHold();
        }
        if (failed && e.setting() == AfterDeadLetter.HOLD) {
            return new HoldKey("its head ended " + e.jobState() + " and the queue holds a key then");
        }
        if (!e.nextWaiting()) {
            return new Nothing("no job of the key waits");
        }
        return new ReleaseNext();
    }
}
