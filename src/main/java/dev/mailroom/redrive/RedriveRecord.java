package dev.mailroom.redrive;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A plan and, once it runs, its recovery record: the filter, the frozen cohort, the phases and per entry
 * the outcome. {@code status}: {@code planned}, {@code running}, {@code stopped} (a stop condition held;
 * {@code stopReason} says which), {@code completed}, {@code interrupted} (the server went down during the
 * run: resume or abandon it), {@code abandoned}.
 *
 * <p>Entry outcomes: {@code pending} (not reached yet), {@code published} (replayed, its send not finished
 * yet), {@code sent}, {@code bounced_permanent} (refused for good for its recipient: not sent, not counted
 * as sent), {@code dead_lettered_again}, {@code discarded_expired}, {@code duplicate_suppressed},
 * {@code skipped_changed} (changed since planning, or claimed by another run), {@code not_run} (the run
 * stopped before it; the entry is open again), {@code discarded} (a discard plan), {@code unknown}.
 *
 * <p>{@code actions}: what the plan or run accepts in its status ({@link RedriveRules#commands}): {@code run},
 * {@code resume}, {@code abandon}.
 */
public record RedriveRecord(String id, String action, String status, String createdBy, Instant createdAt,
                            String reason, RedriveFilter filter, Options options, Cohort cohort, List<Phase> phases,
                            String stopReason, String startedBy, Instant startedAt, Instant finishedAt,
                            Map<String, Long> outcomes, List<Entry> entries, List<String> actions) {

    /** How a run goes; {@code skipSample}: the operator asked for no sample (a replay's sample size is then 0). */
    public record Options(int sampleSize, double sampleRatePerSecond, double ratePerSecond, String sampleTimeout,
                          boolean skipSample) {

        public Options(int sampleSize, double sampleRatePerSecond, double ratePerSecond, String sampleTimeout) {
            this(sampleSize, sampleRatePerSecond, ratePerSecond, sampleTimeout, false);
        }
    }

    /** The frozen cohort: its size, breakdowns, and what the filter matched but the plan left out, by why. */
    public record Cohort(int count, Map<String, Long> byReason, Map<String, Long> byQueue,
                         Map<String, Long> excluded) { }

    public record Phase(String name, Instant startedAt, Instant finishedAt, int entries, String result) { }

    /**
     * One entry; {@code plannedRevision} is the revision the plan would replay (0: the original payload);
     * for an entry dead-lettered again, {@code nextDeadLetterId} and {@code nextError} are its next lap's
     * dead letter and the error it failed with this time.
     */
    public record Entry(long deadLetterId, String messageId, String queue, String reason, String failureClass,
                        Instant failedAt, int lap, String phase, String outcome, Instant publishedAt,
                        String jmsMessageId, Integer revision, String diff, String idempotencyKey, String detail,
                        int plannedRevision, Long nextDeadLetterId, String nextError) { }
}
