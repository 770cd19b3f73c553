package dev.mailroom.recoverability;

import java.util.List;

/**
 * What {@link SuppressionPolicy#decide} answers for an admitted job: send to every recipient, to the others
 * only, or to nobody (the job ends {@code suppressed}, no provider call).
 */
public sealed interface SuppressionDecision {

    /** The recipients not mailed, in order; empty for {@link SendToAll}. */
    List<Withheld> withheld();

    /** One line for the job's timeline. */
    String describe();

    /**
     * A recipient that is not mailed.
     *
     * @param suppressionId the list entry that withholds it; null when an earlier delivery of the job withheld it
     * @param reason        that entry's reason, or {@code withheld_before}
     * @param since         when it was put on the list (null for {@code withheld_before})
     * @param cause         what caused the entry, in words
     * @param newlyWithheld false when an earlier delivery already withheld it (and recorded it)
     */
    record Withheld(int position, String address, Long suppressionId, String reason, java.time.Instant since,
                    String cause, boolean newlyWithheld) {

        public String describe() {
            if (suppressionId == null) {
                return address + " withheld: an earlier delivery of this job already withheld it";
            }
            return address + " withheld: on the suppression list (#" + suppressionId + ", " + reason
                    + (since == null ? "" : ", since " + since) + (cause == null ? "" : ": " + cause) + ")";
        }
    }

    /** No recipient is suppressed: send as it is. */
    record SendToAll() implements SuppressionDecision {
        @Override
        public List<Withheld> withheld() {
            return List.of();
        }

        @Override
        public String describe() {
            return "no recipient is suppressed";
        }
    }

    /** Some recipients are suppressed: send to the {@code remaining} others only. */
    record SendToOthers(List<Withheld> withheld, int remaining) implements SuppressionDecision {
        public SendToOthers {
            withheld = List.copyOf(withheld);
        }

        @Override
        public String describe() {
            return withheld.size() + " recipient(s) suppressed, sent to the " + remaining + " other(s) only";
        }
    }

    /** Every recipient is suppressed: the job ends {@code suppressed}, no provider is called. */
    record SuppressAll(List<Withheld> withheld) implements SuppressionDecision {
        public SuppressAll {
            withheld = List.copyOf(withheld);
        }

        @Override
        public String describe() {
            return "every recipient is suppressed (" + withheld.stream().map(Withheld::address).toList()
                    + "): not sent, no provider call";
        }
    }
}
