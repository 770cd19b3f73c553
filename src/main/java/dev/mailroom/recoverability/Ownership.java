package dev.mailroom.recoverability;

import java.util.Objects;

/**
 * Whose the job is when a delivery comes up for admission: what {@link AdmissionPolicy#ownership} answers. The job's
 * row names the JMS message that owns it; a copy the send path put back without recording it (its line stopped for
 * the database, which could not take the record) names in {@code mr_descends_from} the messages it descends from, so
 * it can prove descent from that owner later.
 */
public sealed interface Ownership {

    /** Whether the delivery may go on to the rest of the admission (every answer but {@link Other}). */
    default boolean owns() {
        return !(this instanceof Other);
    }

    /** The delivery is the job's owner, or nobody owns the job yet (a new job). */
    record Owner() implements Ownership {
    }

    /**
     * The delivery descends from the job's owner through put-backs nobody recorded: it owns the job now, and those
     * put-backs go on the job's timeline.
     *
     * @param owner     the JMS message the job's row names
     * @param delivery  this delivery's JMS message
     * @param putBacks  how many copies were made since the owner, this delivery the last of them
     */
    record Descendant(String owner, String delivery, int putBacks) implements Ownership {
        public Descendant {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(delivery, "delivery");
        }

        /** The timeline entry that records the put-backs now. */
        public String describe() {
            return "put back " + putBacks + (putBacks == 1 ? " time" : " times") + " by a stopped line without a record"
                    + " (the database could not take one): JMS message " + delivery + " descends from " + owner
                    + ", which owned the job, and owns it now";
        }
    }

    /** Another JMS message owns the job and this one does not descend from it: a duplicate. */
    record Other(String owner) implements Ownership {
        public Other {
            Objects.requireNonNull(owner, "owner");
        }
    }
}
