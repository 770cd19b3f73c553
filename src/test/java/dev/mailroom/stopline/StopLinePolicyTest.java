package dev.mailroom.stopline;

import static dev.mailroom.stopline.PauseReason.DATABASE;
import static dev.mailroom.stopline.PauseReason.DEAD_LETTER_RATE;
import static dev.mailroom.stopline.PauseReason.OPERATOR;
import static dev.mailroom.stopline.PauseReason.PROVIDERS_OPEN;
import static dev.mailroom.stopline.PauseReason.SYSTEMIC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.FailureClass;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link StopLinePolicy#decide}: one row per (line state, signal) that matters, and what it decides. */
class StopLinePolicyTest {

    private static final Instant SINCE = Instant.parse("2030-01-01T12:00:00Z");
    private static final Duration RESTART = Duration.ofSeconds(60);

    private static LineState stopped(PauseReason r) {
        return LineState.stopped(r, "seen", SINCE);
    }

    private static ProviderAnswered answer(FailureClass c) {
        return new ProviderAnswered("smtp", c, c == null ? null : "535 5.7.8 bad credentials");
    }

    enum Expect { PAUSE, RESUME, KEEP }

    record Row(String name, LineState state, LineSignal signal, Expect expect, PauseReason reason) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Row> ROWS = List.of(
            // a running line stops on every systemic-looking fact
            new Row("running + systemic answer -> pause systemic", LineState.RUNNING, answer(FailureClass.SYSTEMIC), Expect.PAUSE, SYSTEMIC),
            new Row("running + transient answer -> keep", LineState.RUNNING, answer(FailureClass.TRANSIENT), Expect.KEEP, null),
            new Row("running + accepted -> keep", LineState.RUNNING, answer(null), Expect.KEEP, null),
            new Row("running + every breaker of the chain open -> pause providers_open", LineState.RUNNING, new ChainBreakers(true, "smtp open"), Expect.PAUSE, PROVIDERS_OPEN),
            new Row("running + a breaker open, another not -> keep", LineState.RUNNING, new ChainBreakers(false, "smtp open"), Expect.KEEP, null),
            new Row("running + dead-letter rate tripped -> pause dead_letter_rate", LineState.RUNNING, new DeadLetterRateTripped("12 of 100"), Expect.PAUSE, DEAD_LETTER_RATE),
            new Row("running + database unreachable -> pause database", LineState.RUNNING, new DatabaseUnreachable("refused"), Expect.PAUSE, DATABASE),
            new Row("running + database answers -> keep", LineState.RUNNING, new DatabaseAnswered(), Expect.KEEP, null),
            new Row("running + restart check -> keep", LineState.RUNNING, new RestartCheck(SINCE, RESTART), Expect.KEEP, null),
            new Row("running + operator pause -> pause operator", LineState.RUNNING, new OperatorPaused("ann"), Expect.PAUSE, OPERATOR),
            new Row("running + operator resume -> keep", LineState.RUNNING, new OperatorResumed("ann"), Expect.KEEP, null),
            // systemic: lifted by an answer that shows the provider takes our calls
            new Row("systemic + probe accepted -> resume", stopped(SYSTEMIC), answer(null), Expect.RESUME, null),
            new Row("systemic + probe refused the recipient -> resume", stopped(SYSTEMIC), answer(FailureClass.PERMANENT_RECIPIENT), Expect.RESUME, null),
            new Row("systemic + probe refused the content -> resume", stopped(SYSTEMIC), answer(FailureClass.CONTENT_POLICY), Expect.RESUME, null),
            new Row("systemic + probe soft bounce -> resume", stopped(SYSTEMIC), answer(FailureClass.SOFT_BOUNCE), Expect.RESUME, null),
            new Row("systemic + probe systemic again -> keep", stopped(SYSTEMIC), answer(FailureClass.SYSTEMIC), Expect.KEEP, null),
            new Row("systemic + probe transient -> keep", stopped(SYSTEMIC), answer(FailureClass.TRANSIENT), Expect.KEEP, null),
            new Row("systemic + probe throttled -> keep", stopped(SYSTEMIC), answer(FailureClass.THROTTLED), Expect.KEEP, null),
            new Row("systemic + database answers -> keep", stopped(SYSTEMIC), new DatabaseAnswered(), Expect.KEEP, null),
            new Row("systemic + chain no longer open -> keep", stopped(SYSTEMIC), new ChainBreakers(false, "x"), Expect.KEEP, null),
            new Row("systemic + database unreachable -> keep (first reason stays)", stopped(SYSTEMIC), new DatabaseUnreachable("x"), Expect.KEEP, null),
            new Row("systemic + operator resume -> resume", stopped(SYSTEMIC), new OperatorResumed("ann"), Expect.RESUME, null),
            new Row("systemic + operator pause -> operator takes it over", stopped(SYSTEMIC), new OperatorPaused("ann"), Expect.PAUSE, OPERATOR),
            // providers open: lifted by a breaker leaving open, or by a probe the provider accepts
            new Row("providers_open + a breaker half-open -> resume", stopped(PROVIDERS_OPEN), new ChainBreakers(false, "smtp half_open"), Expect.RESUME, null),
            new Row("providers_open + still all open -> keep", stopped(PROVIDERS_OPEN), new ChainBreakers(true, "smtp open"), Expect.KEEP, null),
            new Row("providers_open + probe accepted -> resume", stopped(PROVIDERS_OPEN), answer(null), Expect.RESUME, null),
            new Row("providers_open + probe transient -> keep", stopped(PROVIDERS_OPEN), answer(FailureClass.TRANSIENT), Expect.KEEP, null),
            // dead-letter rate: restarts after its restart time (MassTransit's kill switch)
            new Row("dead_letter_rate + restart time not yet -> keep", stopped(DEAD_LETTER_RATE), new RestartCheck(SINCE.plusSeconds(59), RESTART), Expect.KEEP, null),
            new Row("dead_letter_rate + restart time reached -> resume", stopped(DEAD_LETTER_RATE), new RestartCheck(SINCE.plusSeconds(60), RESTART), Expect.RESUME, null),
            new Row("dead_letter_rate + accepted -> keep", stopped(DEAD_LETTER_RATE), answer(null), Expect.KEEP, null),
            new Row("dead_letter_rate + tripped again -> keep", stopped(DEAD_LETTER_RATE), new DeadLetterRateTripped("x"), Expect.KEEP, null),
            // database: lifted when it answers
            new Row("database + answers -> resume", stopped(DATABASE), new DatabaseAnswered(), Expect.RESUME, null),
            new Row("database + still unreachable -> keep", stopped(DATABASE), new DatabaseUnreachable("x"), Expect.KEEP, null),
            new Row("database + accepted -> keep", stopped(DATABASE), answer(null), Expect.KEEP, null),
            new Row("database + restart check -> keep", stopped(DATABASE), new RestartCheck(SINCE.plusSeconds(600), RESTART), Expect.KEEP, null),
            // operator: only an operator lifts it
            new Row("operator + probe accepted -> keep", stopped(OPERATOR), answer(null), Expect.KEEP, null),
            new Row("operator + database answers -> keep", stopped(OPERATOR), new DatabaseAnswered(), Expect.KEEP, null),
            new Row("operator + restart check -> keep", stopped(OPERATOR), new RestartCheck(SINCE.plusSeconds(600), RESTART), Expect.KEEP, null),
            new Row("operator + chain no longer open -> keep", stopped(OPERATOR), new ChainBreakers(false, "x"), Expect.KEEP, null),
            new Row("operator + operator pause again -> keep", stopped(OPERATOR), new OperatorPaused("bob"), Expect.KEEP, null),
            new Row("operator + operator resume -> resume", stopped(OPERATOR), new OperatorResumed("bob"), Expect.RESUME, null));

    static Stream<Arguments> rows() {
        return ROWS.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void decides(Row row) {
        LineDecision d = StopLinePolicy.decide(row.state(), row.signal());
        switch (row.expect()) {
            case PAUSE -> {
                assertThat(d).isInstanceOf(LineDecision.Pause.class);
                assertThat(((LineDecision.Pause) d).reason()).isEqualTo(row.reason());
            }
            case RESUME -> assertThat(d).isInstanceOf(LineDecision.Resume.class);
            case KEEP -> assertThat(d).isInstanceOf(LineDecision.Keep.class);
        }
    }

    @Test
    void everyPauseReasonIsReachableAndLiftable() {
        Set<PauseReason> paused = EnumSet.noneOf(PauseReason.class);
        Set<PauseReason> lifted = EnumSet.noneOf(PauseReason.class);
        for (Row row : ROWS) {
            LineDecision d = StopLinePolicy.decide(row.state(), row.signal());
            if (d instanceof LineDecision.Pause p && !row.state().paused()) {
                paused.add(p.reason());
            }
            if (d instanceof LineDecision.Resume && !(row.signal() instanceof OperatorResumed)) {
                lifted.add(row.state().reason());
            }
        }
        assertThat(paused).containsExactlyInAnyOrder(PauseReason.values());
        assertThat(lifted).as("lifted without an operator").containsExactlyInAnyOrder(SYSTEMIC, PROVIDERS_OPEN,
                DEAD_LETTER_RATE, DATABASE);
    }

    @ParameterizedTest
    @EnumSource(PauseReason.class)
    void anOperatorResumeLiftsEveryReason(PauseReason r) {
        assertThat(StopLinePolicy.decide(stopped(r), new OperatorResumed("ann"))).isInstanceOf(LineDecision.Resume.class);
    }

    @Test
    void aSystemicPauseNamesTheProviderAndItsAnswer() {
        LineDecision d = StopLinePolicy.decide(LineState.RUNNING, answer(FailureClass.SYSTEMIC));
        assertThat(((LineDecision.Pause) d).detail()).isEqualTo("smtp: 535 5.7.8 bad credentials");
    }

    @Test
    void anOperatorsPauseKeepsTheirReason() {
        LineDecision d = StopLinePolicy.decide(LineState.RUNNING, new OperatorPaused("ann", "  relay maintenance "));
        assertThat(((LineDecision.Pause) d).detail()).isEqualTo("paused by ann: relay maintenance");
        d = StopLinePolicy.decide(LineState.RUNNING, new OperatorPaused("ann", " "));
        assertThat(((LineDecision.Pause) d).detail()).isEqualTo("paused by ann");
    }

    @ParameterizedTest
    @EnumSource(FailureClass.class)
    void onlyASystemicAnswerStopsARunningLine(FailureClass c) {
        LineDecision d = StopLinePolicy.decide(LineState.RUNNING, answer(c));
        assertThat(d instanceof LineDecision.Pause).isEqualTo(c == FailureClass.SYSTEMIC);
    }

    // ------------------------------------------------------------------ episodes: which outage a line is in

    private static final Duration SAME_OUTAGE = Duration.ofMinutes(10);
    private static final Instant RESTART_AT = SINCE.plusSeconds(50);

    /** Stopped at SINCE for the first time in its outage. */
    private static LineState first(PauseReason r) {
        return LineState.stopped(r, "535 5.7.8 bad credentials", SINCE);
    }

    /** Running again since RESTART_AT after a trial restart of an outage that began at SINCE (systemic). */
    private static LineState restarted() {
        return LineState.restarted(Episode.began(SYSTEMIC, "535 5.7.8 bad credentials", SINCE).restarted(RESTART_AT));
    }

    /**
     * The line after a signal: stopped or not, the outage's start and first cause, the latest cause, the failed
     * probes, and whether it remembers a trial restart (a stop soon would continue the outage). start null: no outage.
     */
    record After(boolean paused, Instant start, PauseReason first, PauseReason latest, int failedProbes,
                 boolean trialRestart) {
        static After of(LineState s) {
            Episode e = s.episode();
            return new After(s.paused(), e == null ? null : e.start(), e == null ? null : e.firstReason(), s.reason(),
                    e == null ? 0 : e.failedProbes(), e != null && e.restartedAt() != null);
        }
    }

    private static final After RUNNING_CLEAN = new After(false, null, null, null, 0, false);

    record EpisodeRow(String name, LineState before, LineSignal signal, Instant at, After expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final Instant SOON = RESTART_AT.plusSeconds(1);
    private static final Instant LATER = RESTART_AT.plus(SAME_OUTAGE).plusSeconds(1);

    static final List<EpisodeRow> EPISODES = List.of(
            new EpisodeRow("running + systemic answer -> a new outage", LineState.RUNNING, answer(FailureClass.SYSTEMIC), SOON,
                    new After(true, SOON, SYSTEMIC, SYSTEMIC, 0, false)),
            new EpisodeRow("trial restart + systemic answer soon -> the same outage, one more failed probe", restarted(),
                    answer(FailureClass.SYSTEMIC), SOON, new After(true, SINCE, SYSTEMIC, SYSTEMIC, 1, false)),
            new EpisodeRow("trial restart + every breaker open soon -> the same outage, latest providers_open", restarted(),
                    new ChainBreakers(true, "smtp open"), SOON, new After(true, SINCE, SYSTEMIC, PROVIDERS_OPEN, 1, false)),
            new EpisodeRow("trial restart + dead-letter rate soon -> the same outage", restarted(),
                    new DeadLetterRateTripped("9 of 20"), SOON, new After(true, SINCE, SYSTEMIC, DEAD_LETTER_RATE, 1, false)),
            new EpisodeRow("trial restart + systemic answer at the limit -> the same outage", restarted(),
                    answer(FailureClass.SYSTEMIC), RESTART_AT.plus(SAME_OUTAGE), new After(true, SINCE, SYSTEMIC, SYSTEMIC, 1, false)),
            new EpisodeRow("trial restart + systemic answer after the limit -> a new outage", restarted(),
                    answer(FailureClass.SYSTEMIC), LATER, new After(true, LATER, SYSTEMIC, SYSTEMIC, 0, false)),
            new EpisodeRow("trial restart + operator pause -> a new outage (a person's decision)", restarted(),
                    new OperatorPaused("ann"), SOON, new After(true, SOON, OPERATOR, OPERATOR, 0, false)),
            new EpisodeRow("trial restart + accepted -> the outage is over", restarted(), answer(null), SOON, RUNNING_CLEAN),
            new EpisodeRow("trial restart + recipient refused -> the outage is over (the provider takes calls)", restarted(),
                    answer(FailureClass.PERMANENT_RECIPIENT), SOON, RUNNING_CLEAN),
            new EpisodeRow("trial restart + transient answer -> still on trial", restarted(), answer(FailureClass.TRANSIENT), SOON,
                    new After(false, SINCE, SYSTEMIC, null, 0, true)),
            new EpisodeRow("systemic + probe systemic -> one more failed probe, start kept", first(SYSTEMIC),
                    answer(FailureClass.SYSTEMIC), SOON, new After(true, SINCE, SYSTEMIC, SYSTEMIC, 1, false)),
            new EpisodeRow("providers_open + probe transient -> one more failed probe", first(PROVIDERS_OPEN),
                    answer(FailureClass.TRANSIENT), SOON, new After(true, SINCE, PROVIDERS_OPEN, PROVIDERS_OPEN, 1, false)),
            new EpisodeRow("providers_open + still all open -> unchanged", first(PROVIDERS_OPEN),
                    new ChainBreakers(true, "smtp open"), SOON, new After(true, SINCE, PROVIDERS_OPEN, PROVIDERS_OPEN, 0, false)),
            new EpisodeRow("dead_letter_rate + systemic answer -> unchanged (no provider holds it)", first(DEAD_LETTER_RATE),
                    answer(FailureClass.SYSTEMIC), SOON, new After(true, SINCE, DEAD_LETTER_RATE, DEAD_LETTER_RATE, 0, false)),
            new EpisodeRow("systemic + operator pause -> the same outage, latest operator", first(SYSTEMIC),
                    new OperatorPaused("ann"), SOON, new After(true, SINCE, SYSTEMIC, OPERATOR, 0, false)),
            new EpisodeRow("systemic + operator resume -> a trial restart", first(SYSTEMIC), new OperatorResumed("ann"), SOON,
                    new After(false, SINCE, SYSTEMIC, null, 0, true)),
            new EpisodeRow("providers_open + a breaker half-open -> a trial restart", first(PROVIDERS_OPEN),
                    new ChainBreakers(false, "smtp half_open"), SOON, new After(false, SINCE, PROVIDERS_OPEN, null, 0, true)),
            new EpisodeRow("dead_letter_rate + restart time -> a trial restart", first(DEAD_LETTER_RATE),
                    new RestartCheck(SINCE.plusSeconds(60), RESTART), SINCE.plusSeconds(60),
                    new After(false, SINCE, DEAD_LETTER_RATE, null, 0, true)),
            new EpisodeRow("systemic + probe accepted -> the outage is over", first(SYSTEMIC), answer(null), SOON, RUNNING_CLEAN),
            new EpisodeRow("database + answers -> the outage is over", first(DATABASE), new DatabaseAnswered(), SOON, RUNNING_CLEAN),
            new EpisodeRow("operator + operator resume -> over (an operator began it)", first(OPERATOR),
                    new OperatorResumed("bob"), SOON, RUNNING_CLEAN));

    static Stream<Arguments> episodes() {
        return EPISODES.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("episodes")
    void keepsTheOutage(EpisodeRow row) {
        LineDecision d = StopLinePolicy.decide(row.before(), row.signal());
        LineState after = StopLinePolicy.next(row.before(), row.signal(), d, row.at(), SAME_OUTAGE);
        assertThat(After.of(after)).isEqualTo(row.expect());
        if (after.paused() && !(d instanceof LineDecision.Keep)) {
            assertThat(after.since()).as("this stop's own time (the restart check counts from it)").isEqualTo(row.at());
        }
    }

    @Test
    void threeRestartsThatStopAgainKeepTheOutagesStartAndFirstCause() {
        LineState line = LineState.RUNNING;
        Instant t = SINCE;
        line = step(line, answer(FailureClass.SYSTEMIC), t);
        for (int cycle = 1; cycle <= 3; cycle++) {
            t = t.plusSeconds(30);
            // the third restart lifts the second stop's providers_open: its breaker went half-open
            line = step(line, cycle == 3 ? new ChainBreakers(false, "smtp half_open") : new OperatorResumed("ann"), t);
            assertThat(line.paused()).isFalse();
            t = t.plusMillis(300);
            line = step(line, cycle == 2 ? new ChainBreakers(true, "smtp open") : answer(FailureClass.SYSTEMIC), t);
            assertThat(line.paused()).isTrue();
            assertThat(line.episode().start()).as("cycle " + cycle).isEqualTo(SINCE);
            assertThat(line.episode().firstReason()).isEqualTo(SYSTEMIC);
            assertThat(line.episode().firstDetail()).contains("535");
            assertThat(line.episode().failedProbes()).isEqualTo(cycle);
            assertThat(line.since()).isEqualTo(t);
        }
    }

    private static LineState step(LineState line, LineSignal signal, Instant at) {
        LineDecision d = StopLinePolicy.decide(line, signal);
        return StopLinePolicy.next(line, signal, d, at, SAME_OUTAGE);
    }

    // ---------------------------------------------------------------- put-backs at a stopped line

    static Stream<Arguments> putBacks() {
        LineState databaseThenOperator = step(step(LineState.RUNNING, new DatabaseUnreachable("refused"), SINCE),
                new OperatorPaused("bob"), SINCE.plusSeconds(5));
        return Stream.of(
                Arguments.of("stopped for the database: the record could not be written", stopped(DATABASE), false),
                Arguments.of("an operator's pause over a database outage: the database may still be away",
                        databaseThenOperator, false),
                Arguments.of("stopped by a provider's systemic answer", stopped(SYSTEMIC), true),
                Arguments.of("every provider of the chain open", stopped(PROVIDERS_OPEN), true),
                Arguments.of("the dead-letter rate", stopped(DEAD_LETTER_RATE), true),
                Arguments.of("an operator's pause", stopped(OPERATOR), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("putBacks")
    void recordsAPutBackUnlessTheDatabaseStoppedTheLine(String name, LineState state, boolean recorded) {
        assertThat(state.paused()).isTrue();
        assertThat(StopLinePolicy.recordsPutBacks(state)).isEqualTo(recorded);
    }

    @Test
    void episodeRowsAreDistinct() {
        assertThat(new HashSet<>(EPISODES.stream().map(EpisodeRow::name).toList())).hasSize(EPISODES.size());
    }

    @Test
    void rowsAreDistinct() {
        assertThat(new HashSet<>(ROWS.stream().map(Row::name).toList())).hasSize(ROWS.size());
    }
}
