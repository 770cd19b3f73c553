package dev.mailroom.deadletter;

/**
 * What the sweeper does with a bare message on a DLQ (one without the {@code mr_*} envelope: the broker
 * moved it there after its delivery limit), decided from the dead letter with the message's identity
 * (consumer, source queue, message id; the lap a replay failed onto). Either way the bare message is
 * taken off and put back with its envelope, so a message is swept once and every DLQ message carries
 * the envelope; the decision is whether it is a new dead letter (a row written or reopened, an
 * arrival announced) or one more copy of a dead letter already recorded (nothing rewritten, nothing
 * announced again).
 */
public final class DlqSweepRules {

    private DlqSweepRules() {
    }

    /** The dead letter with the message's identity, as far as the decision needs it. */
    public record Recorded(long id, DeadLetter.Status status, String dlqJmsMessageId) { }

    /** What to do with one bare DLQ message. */
    public sealed interface Action {
        /** Record it: a new dead letter, the next lap of a replayed one, or one dealt with that failed again. */
        record RecordDeadLetter(String why) implements Action { }

        /** Envelope it as a copy of dead letter {@code deadLetterId}, already recorded and still to be dealt with. */
        record EnvelopeCopy(long deadLetterId, String why) implements Action { }
    }

    /**
     * @param jmsMessageId the bare message's JMS id on the DLQ
     * @param recorded     the dead letter with its identity (the latest lap), or null if there is none
     */
    public static Action decide(String jmsMessageId, Recorded recorded) {
        if (recorded == null) {
            return new Action.RecordDeadLetter("not recorded yet");
        }
        if (jmsMessageId != null && jmsMessageId.equals(recorded.dlqJmsMessageId())) {
            return new Action.EnvelopeCopy(recorded.id(), "recorded before DLQ copies carried their envelope");
        }
        return switch (recorded.status()) {
            case open, replaying -> new Action.EnvelopeCopy(recorded.id(), "another copy of a dead letter still "
                    + recorded.status());
            case replayed -> new Action.RecordDeadLetter("the replay failed again: the next lap");
            case discarded, expired -> new Action.RecordDeadLetter("failed again after it was " + recorded.status());
        };
    }
}
