package dev.mailroom.job;

import com.fasterxml.jackson.core.JacksonException;
import dev.mailroom.contract.JobContract;
import dev.mailroom.contract.RejectReason;
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;
import java.math.BigDecimal;

/**
 * Turns the bytes of a send job into a {@link SendJob}, or says precisely why it cannot. What a valid job is, the
 * order of the checks and the words of a refusal are {@link JobContract}'s (the producers' client decides with the
 * same code); this class binds what kept the contract and makes every refusal a {@link Rejected}.
 *
 * <p>{@link #parse(byte[])} never throws: a job the consumer cannot read must become a recorded rejection, never an
 * exception that would roll the transaction back and be redelivered forever. If the contract check itself fails
 * unexpectedly (a bug), the result is a {@code schema_violation} whose detail says so.
 *
 * <p>Thread-safe and meant to be shared.
 *
 * <p>Mapping: a valid document is bound to {@link SendJob} by Jackson (tree binding, snake_case names). Numbers in
 * {@code variables} become {@link Integer}, {@link Long}, {@link java.math.BigInteger} or, for fractions,
 * {@link BigDecimal} exactly as written ({@code 12.50} stays {@code 12.50}); {@link SendJob} drops JSON {@code null}
 * inside {@code variables} objects ("absent", at every depth) and makes nested objects and arrays unmodifiable.
 */
public final class JobParser {

    /** Default body limit: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = JobContract.DEFAULT_MAX_BODY_BYTES;
    /** Deepest JSON nesting accepted; deeper documents are {@code not_json}. */
    public static final int MAX_NESTING_DEPTH = JobContract.MAX_NESTING_DEPTH;
    /** The newest {@code schema_version} this build reads (it reads every one from 1 up to it). */
    public static final int LATEST_SCHEMA_VERSION = JobContract.LATEST_SCHEMA_VERSION;
    /** Classpath location of the job contract. */
    public static final String SCHEMA_RESOURCE = JobContract.SCHEMA_RESOURCE;

    private final int maxBodyBytes;

    /** A parser with the default 1 MiB body limit. */
    public JobParser() {
        this(DEFAULT_MAX_BODY_BYTES);
    }

    /**
     * @param maxBodyBytes largest accepted body in bytes; larger bodies are {@code too_large}
     * @throws IllegalArgumentException if not positive
     */
    public JobParser(int maxBodyBytes) {
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The body limit in bytes. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * Parses and validates one job body. Never throws.
     *
     * @param body the raw message bytes (UTF-8 JSON); may be null
     * @return {@link Parsed} with the job, or {@link Rejected} with the reason, a bounded detail and the
     *     message id when it could be read
     */
    public ParseResult parse(byte[] body) {
        try {
            JobContract.Verdict verdict = JobContract.check(body, maxBodyBytes);
            if (verdict instanceof JobContract.Broken broken) {
                return new Rejected(broken.reason(), broken.detail(), broken.messageId());
            }
            return bind((JobContract.Kept) verdict);
        } catch (RuntimeException | StackOverflowError e) {
            // Not reachable for any known input (depth and size are bounded); kept so that a bug here
            // still yields a recorded rejection instead of an endless redelivery loop.
            return new Rejected(RejectReason.schema_violation,
                    "the job could not be validated (parser error " + e.getClass().getName() + ": "
                            + e.getMessage() + ")",
                    null);
        }
    }

    private static Parsed bind(JobContract.Kept kept) {
        try {
            return new Parsed(JobContract.reader().forType(SendJob.class).readValue(kept.root()));
        } catch (java.io.IOException e) {
            // The schema admitted what the record cannot hold: a gap between the two, i.e. a bug here.
            throw new IllegalStateException("a valid job did not bind to SendJob: "
                    + (e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
    }

    /**
     * Whether a job header names one Mailroom writes itself; see {@link JobContract#isOwnedHeader(String)}.
     */
    public static boolean isOwnedHeader(String name) {
        return JobContract.isOwnedHeader(name);
    }
}
