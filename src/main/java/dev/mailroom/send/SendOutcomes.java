package dev.mailroom.send;

import dev.mailroom.job.Begin;
import dev.mailroom.job.JobState;
import dev.mailroom.recoverability.RecoveryAction;

/** The outcome label a delivery's metrics count it under, from the decision it ended with. */
final class SendOutcomes {

    private SendOutcomes() {
    }

    static String of(RecoveryAction a) {
        if (a instanceof RecoveryAction.DeadLetter) {
            return JobState.dead_lettered.name();
        } else if (a instanceof RecoveryAction.Discard) {
            return JobState.discarded.name();
        } else if (a instanceof RecoveryAction.Ack ack) {
            return ack.outcome();
        }
        return JobState.retry_scheduled.name();
    }

    static String of(Begin b) {
        if (b instanceof Begin.AlreadyFinished) {
            return "redelivery_ignored";
        } else if (b instanceof Begin.DuplicateMessage) {
            return "duplicate_message_ignored";
        } else if (b instanceof Begin.DuplicateKey) {
            return JobState.duplicate_suppressed.name();
        } else if (b instanceof Begin.Expired) {
            return JobState.discarded.name();
        } else if (b instanceof Begin.Ambiguous) {
            return JobState.unknown.name();
        } else if (b instanceof Begin.Suppressed) {
            return JobState.suppressed.name();
        }
        throw new IllegalArgumentException("not a final answer: " + b);
    }
}
