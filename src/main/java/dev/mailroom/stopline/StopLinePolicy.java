package dev.mailroom.stopline;

import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.stopline.LineDecision.Keep;
import dev.mailroom.stopline.LineDecision.Pause;
import dev.mailroom.stopline.LineDecision.Resume;
import dev.mailroom.stopline.LineSignal.ChainBreakers;
import dev.mailroom.stopline.LineSignal.DatabaseAnswered;
import dev.mailroom.stopline.LineSignal.DatabaseUnreachable;
import dev.mailroom.stopline.LineSignal.DeadLetterRateTripped;
import dev.mailroom.stopline.LineSignal.OperatorPaused;
import dev.mailroom.stopline.LineSignal.OperatorResumed;
import dev.mailroom.stopline.LineSignal.ProviderAnswered;
import dev.mailroom.stopline.LineSignal.RestartCheck;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a send queue's line stops or starts: a pure function of its state and one signal.
 *
 * <ul>
 *   <li>A running line stops on a {@code systemic} answer, on every provider of its chain open, on the
 *       dead-letter-rate window tripping, on the database not answering, and when an operator pauses it.</li>
 *   <li>A stopped line starts again only on what lifts its own reason: a provider answer that shows the
 *       provider takes our calls again (accepted, or refused for the job's own sake: recipient, content, soft
 *       bounce) lifts {@code systemic} and {@code providers_open}; a breaker of the chain leaving open lifts
 *       {@code providers_open}; the restart time lifts {@code dead_letter_rate}; the database answering lifts
 *       {@code database}. An operator's resume lifts any reason; an operator's pause is lifted by nothing else.</li>
 *   <li>A second cause while stopped changes nothing (the first reason stays the record), except that an
 *       operator's pause takes the line over, so no probe lifts what a person decided.</li>
 * </ul>
 * {@link #next} then says which outage ({@link Episode}) the line is in after the decision.
 */
public final class StopLinePolicy {

    /** Answers that show the provider takes our calls: it accepted, or refused the job for the job's own sake. */
    static final Set<FailureClass> PROVIDER_WORKS = EnumSet.of(FailureClass.PERMANENT_RECIPIENT,
            FailureClass.CONTENT_POLICY, FailureClass.SOFT_BOUNCE);

    private StopLinePolicy() {
    }

    public static LineDecision decide(LineState state, LineSignal signal) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(signal, "signal");
        PauseReason r = state.reason();
        if (signal instanceof OperatorResumed o) {
            return r == null ? new Keep() : new Resume("resumed by " + o.actor(), false);
        }
        if (signal instanceof OperatorPaused o) {
            return r == PauseReason.OPERATOR ? new Keep() : new Pause(PauseReason.OPERATOR,
                    "paused by " + o.actor() + (o.why() == null ? "" : ": " + o.why()));
        }
        if (r == null) {
            return whenRunning(signal);
        }
        if (signal instanceof ProviderAnswered a) {
            boolean works = a.accepted() || PROVIDER_WORKS.contains(a.failureClass());
            return (r == PauseReason.SYSTEMIC || r == PauseReason.PROVIDERS_OPEN) && works
                    ? new Resume(a.provider() + " takes our calls again ("
                    + (a.accepted() ? "accepted" : a.failureClass().wireName()) + ")", true)
                    : new Keep();
        }
        if (signal instanceof ChainBreakers b) {
            return r == PauseReason.PROVIDERS_OPEN && !b.allOpen()
                    ? new Resume("a provider of the chain is no longer open: " + b.detail(), false) : new Keep();
        }
        if (signal instanceof RestartCheck c) {
            return r == PauseReason.DEAD_LETTER_RATE && !c.now().isBefore(state.since().plus(c.restartAfter()))
                    ? new Resume("restarted after " + c.restartAfter(), false) : new Keep();
        }
        if (signal instanceof DatabaseAnswered) {
            return r == PauseReason.DATABASE ? new Resume("the database answers again", true) : new Keep();
        }
        return new Keep(); // a second cause while stopped: the first reason stays the record
    }

    /**
     * The line after {@code decision} (taken on {@code signal} at {@code now}), and whether a stop begins a new
     * outage or continues the last one:
     * <ul>
     *   <li>a stop of a line restarted without proof that the outage was over continues that outage if it comes
     *       within {@code sameOutage} of the restart: the start and first cause stay, the restart counts as a failed
     *       probe, the new cause is the latest. An operator's pause of a running line, or a stop later, begins a
     *       new outage;</li>
     *   <li>an operator's pause over a stopped line stays in its outage, with {@code operator} as the latest cause;</li>
     *   <li>a resume that shows the cause is gone ends the outage, and so does any resume of an outage an operator
     *       began; any other resume is a trial restart, remembered with its time;</li>
     *   <li>while a provider holds the line stopped, an answer that does not lift it is a failed probe;</li>
     *   <li>after a trial restart, an answer showing the provider takes our calls ends the outage.</li>
     * </ul>
     */
    public static LineState next(LineState before, LineSignal signal, LineDecision decision, Instant now,
                                 Duration sameOutage) {
        Episode episode = before.episode();
        if (decision instanceof Pause p) {
            if (before.paused()) {
                return LineState.stopped(p.reason(), p.detail(), now, episode);
            }
            boolean continues = episode != null && episode.restartedAt() != null && p.reason() != PauseReason.OPERATOR
                    && !now.isAfter(episode.restartedAt().plus(sameOutage));
            return continues ? LineState.stopped(p.reason(), p.detail(), now, episode.stoppedAgain())
                    : LineState.stopped(p.reason(), p.detail(), now);
        }
        if (decision instanceof Resume r) {
            return r.outageOver() || episode == null || episode.firstReason() == PauseReason.OPERATOR
                    ? LineState.RUNNING : LineState.restarted(episode.restarted(now));
        }
        if (signal instanceof ProviderAnswered a && episode != null) {
            boolean works = a.accepted() || PROVIDER_WORKS.contains(a.failureClass());
            boolean heldByProvider = before.reason() == PauseReason.SYSTEMIC
                    || before.reason() == PauseReason.PROVIDERS_OPEN;
            if (before.paused() && heldByProvider && !works) {
                return LineState.stopped(before.reason(), before.detail(), before.since(), episode.probeFailed());
            }
            if (!before.paused() && works) {
                return LineState.RUNNING;
            }
        }
        return before;
    }

    /**
     * Whether a delivery put back by this stopped line records the deferral in the database (the copy takes the job's
     * ownership there, in the delivery's transaction). Not while the database stopped the line, now or first in this
     * outage: that write would fail, roll the delivery back and use one of the broker's delivery attempts of its job;
     * the copy then carries its descent instead ({@code mr_descends_from}) and admission records the deferral later.
     */
    public static boolean recordsPutBacks(LineState state) {
        return state.reason() != PauseReason.DATABASE
                && (state.episode() == null || state.episode().firstReason() != PauseReason.DATABASE);
    }

    private static LineDecision whenRunning(LineSignal signal) {
        if (signal instanceof ProviderAnswered a) {
            return a.failureClass() == FailureClass.SYSTEMIC
                    ? new Pause(PauseReason.SYSTEMIC, a.provider() + ": " + a.detail()) : new Keep();
        }
        if (signal instanceof ChainBreakers b) {
            return b.allOpen() ? new Pause(PauseReason.PROVIDERS_OPEN, b.detail()) : new Keep();
        }
        if (signal instanceof DeadLetterRateTripped t) {
            return new Pause(PauseReason.DEAD_LETTER_RATE, t.detail());
        }
        if (signal instanceof DatabaseUnreachable u) {
            return new Pause(PauseReason.DATABASE, u.detail());
        }
        return new Keep();
    }
}
