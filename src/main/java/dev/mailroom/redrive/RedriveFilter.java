package dev.mailroom.redrive;

import java.time.Instant;
import java.util.List;

/**
 * Which dead letters a plan selects; null fields match everything. Only {@code open} entries are ever
 * selected. The time window is on {@code failed_at}, [from, to). {@code ids} narrows to explicit entries;
 * {@code fingerprint} to one failure group's normalised error (exactly).
 */
public record RedriveFilter(String queue, String reason, String failureClass, String errorType,
                            String consumerVersion, String campaignId, String tenant, String provider,
                            Instant from, Instant to, List<Long> ids, String fingerprint) {

    public RedriveFilter(String queue, String reason, String failureClass, String errorType,
                         String consumerVersion, String campaignId, String tenant, String provider,
                         Instant from, Instant to, List<Long> ids) {
        this(queue, reason, failureClass, errorType, consumerVersion, campaignId, tenant, provider, from, to, ids, null);
    }

    public static RedriveFilter ofIds(List<Long> ids) {
        return new RedriveFilter(null, null, null, null, null, null, null, null, null, null, ids);
    }
}
