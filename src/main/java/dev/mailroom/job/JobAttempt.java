package dev.mailroom.job;

import dev.mailroom.provider.ProviderResponse;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One provider call for a job: when, through whom, and what the provider said, verbatim and bounded. */
@Entity
@Table(name = "job_attempt")
public class JobAttempt {

    /** How an attempt ended; {@code abandoned}: the worker died before the point of no return. */
    /** {@code not_called}: the attempt ended before its provider's call (an attachment could not be fetched). */
    public enum Outcome { accepted, rejected, not_connected, ambiguous, abandoned, not_called }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "job_id")
    private Long jobId;
    @Column(name = "attempt_number")
    private int attemptNumber;
    @Column(name = "jms_message_id")
    private String jmsMessageId;
    private String provider;
    @Column(name = "started_at")
    private Instant startedAt;
    @Column(name = "irrevocable_at")
    private Instant irrevocableAt;
    @Column(name = "finished_at")
    private Instant finishedAt;
    private String outcome;
    private String code;
    @Column(name = "enhanced_code")
    private String enhancedCode;
    private String response;
    @Column(name = "error_type")
    private String errorType;
    @Column(name = "failure_class")
    private String failureClass;
    @Column(name = "consumed_attempt")
    private boolean consumedAttempt = true;
    private String decision;

    protected JobAttempt() {
    }

    JobAttempt(Long jobId, int attemptNumber, String jmsMessageId, String provider, Instant startedAt) {
        this.jobId = jobId;
        this.attemptNumber = attemptNumber;
        this.jmsMessageId = jmsMessageId;
        this.provider = provider;
        this.startedAt = startedAt;
    }

    public Long getId() { return id; }
    public Long getJobId() { return jobId; }
    public int getAttemptNumber() { return attemptNumber; }
    public String getJmsMessageId() { return jmsMessageId; }
    public String getProvider() { return provider; }
    public Instant getStartedAt() { return startedAt; }
    public Instant getIrrevocableAt() { return irrevocableAt; }
    public Instant getFinishedAt() { return finishedAt; }
    public String getOutcome() { return outcome; }
    public String getCode() { return code; }
    public String getEnhancedCode() { return enhancedCode; }
    public String getResponse() { return response; }
    public String getErrorType() { return errorType; }
    public String getFailureClass() { return failureClass; }
    public boolean isConsumedAttempt() { return consumedAttempt; }
    public String getDecision() { return decision; }

    boolean unfinished() {
        return finishedAt == null;
    }

    /**
     * Past its point of no return from {@code at} (from its start for a provider whose call writes at once and drops
     * a duplicate); null takes it back, for a worker that knows it never wrote the mail.
     */
    void irrevocableFrom(Instant at) {
        this.irrevocableAt = at;
    }

    void finish(ProviderResponse r, Instant at) {
        this.finishedAt = at;
        this.outcome = outcomeOf(r).name();
        this.code = r.code();
        this.enhancedCode = r.enhancedCode();
        this.response = ProviderResponse.bound(r.text());
        this.errorType = r.errorType();
    }

    /** How an attempt the provider answered ended. */
    static Outcome outcomeOf(ProviderResponse r) {
        return switch (r.status()) {
            case ACCEPTED -> Outcome.accepted;
            case REJECTED -> Outcome.rejected;
            case NOT_CONNECTED -> Outcome.not_connected;
            case AMBIGUOUS -> Outcome.ambiguous;
        };
    }

    void endedBeforeItsCall() {
        this.outcome = Outcome.not_called.name();
    }

    void classified(String failureClass, boolean consumedAttempt, String decision) {
        this.failureClass = failureClass;
        this.consumedAttempt = consumedAttempt;
        this.decision = decision == null || decision.length() <= 300 ? decision : decision.substring(0, 300);
    }

    void close(Outcome outcome, String why, Instant at) {
        this.finishedAt = at;
        this.outcome = outcome.name();
        this.response = ProviderResponse.bound(why);
        // a call that never reached the provider used up nothing
        this.consumedAttempt = outcome != Outcome.abandoned;
    }
}
