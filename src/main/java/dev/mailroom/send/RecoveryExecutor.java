package dev.mailroom.send;

import dev.mailroom.job.Begin;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.JobState;
import dev.mailroom.platform.Destinations;

import dev.mailroom.deadletter.DeadLetterRecorder;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.stopline.StopLine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;

/**
 * Carries out a {@link RecoveryAction} in the delivery's own transaction, so the action and the
 * acknowledgement of the delivery commit together: a retry is a copy of the job scheduled on the
 * broker (JMS delivery delay), never a consumer thread sleeping; a dead letter is a DLQ copy plus its
 * record; an end state is recorded on the job.
 */
@ApplicationScoped
public class RecoveryExecutor {

    private static final Logger LOG = Logger.getLogger(RecoveryExecutor.class.getName());

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    JobLedger ledger;
    @Inject
    DeadLetterRecorder deadLetters;
    @Inject
    Clock clock;
    @Inject
    StopLine line;
    @Inject
    JobParser parser;

    /**
     * The action as it will be carried out, for the attempt's record and the timeline to say the same: a
     * {@link RecoveryAction.Pause} goes back to the broker after the stop-the-line put-back, not after the policy's
     * delay (the stopped line, not that delay, decides when the job is tried again). Every other action as decided.
     */
    public RecoveryAction asCarriedOut(RecoveryAction decided) {
        return decided instanceof RecoveryAction.Pause pause ? pause.after(line.putBack()) : decided;
    }

    /** Carries out {@code action}, which {@link #asCarriedOut} made of the decision. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void carryOut(Incoming in, Begin.Proceed p, Failure failure, RecoveryAction action, Throwable cause) {
        if (action instanceof RecoveryAction.RetryAfter r) {
            retry(in, p, action, r.delay());
        } else if (action instanceof RecoveryAction.Throttle t) {
            retry(in, p, action, t.delay());
        } else if (action instanceof RecoveryAction.Reroute r) {
            retry(in, p, action, r.delay());
        } else if (action instanceof RecoveryAction.Pause pause) {
            // A systemic fault stops the line (the send path told StopLine, which pauses the queue's consumers):
            // this job goes back to the broker without using a retry and waits there with the others.
            LOG.severe(() -> String.format("systemic failure (%s) on %s: %s; job %d goes back to the broker (due in %s),"
                    + " no attempt used; the line of %s stops", pause.scope(), failure.provider(), failure.text(),
                    p.jobId(), pause.delay(), in.queue()));
            retry(in, p, pause, pause.delay());
        } else if (action instanceof RecoveryAction.DeadLetter d) {
            deadLetters.deadLetter(in, ledger.job(p.jobId()), d.reason(), d.failureClass().wireName(),
                    failure.text(), failure.errorType() != null ? failure.errorType()
                            : failure.provider() + " " + failure.code() + (failure.enhancedCode() == null ? "" : " " + failure.enhancedCode()),
                    cause);
        } else if (action instanceof RecoveryAction.Discard d) {
            ledger.finish(p.jobId(), JobState.discarded, "discarded", d.describe() + "; never sent late");
        } else if (action instanceof RecoveryAction.Ack a && RecoveryAction.Ack.UNKNOWN.equals(a.outcome())) {
            ledger.unknown(p.jobId(), in, "attempt " + p.attemptNumber() + " through " + failure.provider()
                    + " passed its point of no return and got no answer (" + failure.text() + "); "
                    + failure.provider() + " cannot drop a duplicate, so it is not sent again: an operator marks it"
                    + " as sent or sends it again");
        } else if (action instanceof RecoveryAction.Ack a) {
            ledger.finish(p.jobId(), JobState.valueOf(a.outcome()), a.outcome(), action.describe() + ": " + failure.text());
        } else {
            throw new IllegalArgumentException("no executor for " + action);
        }
    }

    private void retry(Incoming in, Begin.Proceed p, RecoveryAction action, Duration delay) {
        Instant due = clock.instant().plus(delay);
        String copyId = scheduleCopy(in, delay, p.attemptNumber());
        ledger.retryScheduled(p.jobId(), copyId, action, due);
    }

    /**
     * A delivery met a stopped line before any attempt: a copy goes back to the broker, due after the
     * stop-the-line put-back. No retry is used. {@code recorded} ({@code StopLinePolicy.recordsPutBacks}): the copy
     * takes over the job's ownership in the database if the job is known; else nothing touches the database, the
     * delivery commits with the broker alone, and the copy carries its descent for admission to prove later.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void putBack(Incoming in, String why, boolean recorded) {
        Duration delay = line.putBack();
        if (!recorded) {
            scheduleCopy(in, delay, 0, in.descentOfACopy());
            return;
        }
        String copy = scheduleCopy(in, delay, 0);
        if (parser.parse(in.body()) instanceof ParseResult.Parsed parsed) {
            ledger.deferred(in.queue(), parsed.job().messageId(), copy, why + ": put back for " + delay);
        }
    }

    /**
     * Puts a copy of the delivery back on its queue, due after {@code delay}, in the current
     * transaction; returns the copy's JMS message id. The body is the original, byte-for-byte.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public String scheduleCopy(Incoming in, Duration delay, int attemptsSoFar) {
        return scheduleCopy(in, delay, attemptsSoFar, java.util.List.of());
    }

    /** As {@link #scheduleCopy(Incoming, Duration, int)}, the copy carrying {@code descendsFrom} when there is one. */
    private String scheduleCopy(Incoming in, Duration delay, int attemptsSoFar, java.util.List<String> descendsFrom) {
        try {
            Message copy = JmsMessages.copyOf(jms, in);
            copy.setStringProperty("mr_retry_of", in.jmsMessageId());
            copy.setIntProperty("mr_attempts", attemptsSoFar);
            if (!descendsFrom.isEmpty()) {
                copy.setStringProperty(Incoming.DESCENDS_FROM_PROPERTY, String.join(",", descendsFrom));
            }
            jms.createProducer()
                    .setDeliveryDelay(Math.max(0, delay.toMillis()))
                    .send(destinations.sendQueue(in.queue()), copy);
            return copy.getJMSMessageID();
        } catch (JMSException e) {
            throw new IllegalStateException("cannot schedule a retry of " + in.jmsMessageId(), e);
        }
    }
}
