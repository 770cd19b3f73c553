package dev.mailroom.erasure;

import dev.mailroom.job.JobRecipient;
import dev.mailroom.platform.Refused;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.logging.Logger;

/**
 * Erases one address: its audit row first ({@code running}), then every table of {@link ErasureTarget#ALL} in
 * batches of {@value #BATCH} rows ({@value #BINARY_BATCH} of a table with binary columns), one transaction each,
 * then {@code done}. No transaction of its own.
 *
 * <p>Idempotent and resumable by the address's hash (the address itself is not stored, so only a request naming it
 * can go on): a request that finds its erasure {@code running} (a crash, a timeout) goes through every table again
 * and finishes what is left; one that finds it {@code done} goes through them too (an address may have come back
 * since, in a new job) and, finding nothing, is a no-op: the record is returned unchanged.
 */
@ApplicationScoped
public class Erasure {

    /** Rows read per transaction at most. */
    static final int BATCH = 500;
    /** Rows read per transaction at most from a table with binary columns (payloads, bodies, attachments), read whole here. */
    static final int BINARY_BATCH = 50;
    static final int MAX_REASON = 1000;
    private static final Logger LOG = Logger.getLogger(Erasure.class.getName());

    @Inject
    ErasureBatch batches;
    @Inject
    Clock clock;

    public ErasureRecord erase(String address, String actor, String reason) {
        String a = ErasurePolicy.normalise(address);
        String why = reason(reason, a);
        String sha256 = JobRecipient.sha256(a);
        ErasureRecord before = batches.start(sha256, actor, why, clock.instant());
        for (ErasureTarget t : ErasureTarget.ALL) {
            ErasureBatch.Page p = new ErasureBatch.Page(null, true);
            while (p.more()) {
                p = batches.page(sha256, t, a, p.after(), t.bytes().isEmpty() ? BATCH : BINARY_BATCH, actor, why);
            }
        }
        ErasureRecord after = batches.finish(sha256, clock.instant());
        boolean noOp = before.state().equals("done") && after.counts().equals(before.counts());
        LOG.info(() -> String.format("erasure %d (%s): %s, %s: %s", after.id(), noOp ? "no-op" : "done", actor, why,
                after.counts()));
        return noOp ? before.asNoOp() : after;
    }

    public List<ErasureRecord> list(int limit) {
        return batches.list(limit);
    }

    /** The reason, required, bounded, and not naming the address (it is kept in the audit). */
    static String reason(String reason, String normalisedAddress) {
        if (reason == null || reason.isBlank()) {
            throw new Refused.Invalid("reason_required", "say why: {\"address\": ..., \"reason\": \"...\"} (kept in the audit)");
        }
        if (reason.length() > MAX_REASON) {
            throw new Refused.Invalid("reason_too_long", "a reason is at most " + MAX_REASON + " characters");
        }
        if (ErasurePolicy.names(reason, normalisedAddress)) {
            throw new Refused.Invalid("reason_names_address", "the reason is kept in the audit: it must not name the address");
        }
        return reason.strip();
    }
}
