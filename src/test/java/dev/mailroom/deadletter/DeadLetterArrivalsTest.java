package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure bucketing behind {@code GET /api/v1/dead-letters/arrivals}. */
class DeadLetterArrivalsTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:07:30Z");

    @Test
    void theWindowStartsOnABucketBoundary() {
        assertThat(DeadLetterArrivals.arrivalsFrom(Duration.ofMinutes(15), 1, NOW))
                .isEqualTo(Instant.parse("2026-11-30T09:00:00Z"));
        assertThat(DeadLetterArrivals.arrivalsFrom(Duration.ofMinutes(1), 24, NOW))
                .isEqualTo(Instant.parse("2026-11-29T10:07:00Z"));
    }

    @Test
    void countsEachTimeInItsBucketAndKeepsEmptyBuckets() {
        Instant from = DeadLetterArrivals.arrivalsFrom(Duration.ofMinutes(15), 1, NOW);
        List<DeadLetterArrivals.Bucket> buckets = DeadLetterArrivals.arrivalBuckets(Map.of(
                Instant.parse("2026-11-30T09:00:00Z"), 2L,   // the first bucket
                Instant.parse("2026-11-30T09:45:00Z"), 1L,
                Instant.parse("2026-11-30T10:00:00Z"), 1L,   // the bucket holding now
                Instant.parse("2026-11-30T08:45:00Z"), 7L,   // before the window: ignored
                Instant.parse("2026-11-30T10:15:00Z"), 9L),  // after the last bucket: ignored
                from, NOW, Duration.ofMinutes(15));

        assertThat(buckets).extracting(DeadLetterArrivals.Bucket::start).containsExactly(
                Instant.parse("2026-11-30T09:00:00Z"), Instant.parse("2026-11-30T09:15:00Z"),
                Instant.parse("2026-11-30T09:30:00Z"), Instant.parse("2026-11-30T09:45:00Z"),
                Instant.parse("2026-11-30T10:00:00Z"));
        assertThat(buckets).extracting(DeadLetterArrivals.Bucket::count).containsExactly(2L, 0L, 0L, 1L, 1L);
    }

    @Test
    void eachBucketCountsItsReasonsAndTheirSum() {
        Instant from = DeadLetterArrivals.arrivalsFrom(Duration.ofMinutes(15), 1, NOW);
        List<DeadLetterArrivals.Bucket> buckets = DeadLetterArrivals.arrivalBucketsByReason(Map.of(
                Instant.parse("2026-11-30T09:15:00Z"), Map.of("poison", 2L, "retries_exhausted", 3L),
                Instant.parse("2026-11-30T08:45:00Z"), Map.of("poison", 7L)),   // before the window: ignored
                from, NOW, Duration.ofMinutes(15));

        assertThat(buckets).hasSize(5);
        assertThat(buckets.get(1).count()).isEqualTo(5);
        assertThat(buckets.get(1).byReason()).containsOnly(Map.entry("poison", 2L), Map.entry("retries_exhausted", 3L));
        assertThat(buckets.get(0).byReason()).isEmpty();
        assertThat(buckets).extracting(DeadLetterArrivals.Bucket::count).containsExactly(0L, 5L, 0L, 0L, 0L);
    }

    @Test
    void noTimesGivesZeroBuckets() {
        Instant from = DeadLetterArrivals.arrivalsFrom(Duration.ofHours(1), 24, NOW);
        List<DeadLetterArrivals.Bucket> buckets = DeadLetterArrivals.arrivalBuckets(Map.of(), from, NOW,
                Duration.ofHours(1));
        assertThat(buckets).hasSize(25);
        assertThat(buckets).allSatisfy(b -> assertThat(b.count()).isZero());
    }

    @Test
    void aBucketMustBePositive() {
        assertThatThrownBy(() -> DeadLetterArrivals.arrivalsFrom(Duration.ZERO, 1, NOW))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
