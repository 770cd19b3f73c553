package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ValidityWindowTest {

    private static final Instant RECEIVED = Instant.parse("2026-11-29T10:00:00Z");

    private static SendJob job(String category, Instant expiresAt) {
        return new SendJob(1, "m", null, null, null, category, "a@example.com", List.of("b@example.com"), null,
                null, null, "s", "t", null, null, null, null, null, expiresAt, null, null, null);
    }

    private static ValidityWindow window(Map<String, String> config) {
        return new ValidityWindow(k -> Optional.ofNullable(config.get(k)));
    }

    @Test
    void theJobsOwnExpiryWins() {
        Instant own = Instant.parse("2026-11-29T10:05:00Z");
        ValidityWindow w = window(Map.of("mailroom.validity.ttl.password_reset", "PT1H",
                "mailroom.validity.default-ttl", "P7D"));
        assertThat(w.expiresAt(job("password_reset", own), RECEIVED)).isEqualTo(own);
    }

    @Test
    void theCategoryTtlAppliesFromReceipt() {
        ValidityWindow w = window(Map.of("mailroom.validity.ttl.password_reset", "PT15M",
                "mailroom.validity.default-ttl", "P7D"));
        assertThat(w.expiresAt(job("password_reset", null), RECEIVED)).isEqualTo(RECEIVED.plusSeconds(900));
    }

    @Test
    void aTtlCountsFromALaterSendTimeAndAnOwnExpiryStillWins() {
        ValidityWindow w = window(Map.of("mailroom.validity.ttl.reminder", "PT1H", "mailroom.validity.default-ttl", "P3D"));
        Instant inAWeek = RECEIVED.plusSeconds(7 * 86400);
        assertThat(w.expiresAt(scheduled("reminder", null, inAWeek), RECEIVED)).isEqualTo(inAWeek.plusSeconds(3600));
        assertThat(w.expiresAt(scheduled(null, null, inAWeek), RECEIVED)).isEqualTo(inAWeek.plusSeconds(3 * 86400));
        // a send time in the past sends now: the window counts from receipt
        assertThat(w.expiresAt(scheduled("reminder", null, RECEIVED.minusSeconds(60)), RECEIVED))
                .isEqualTo(RECEIVED.plusSeconds(3600));
        Instant own = inAWeek.plusSeconds(60);
        assertThat(w.expiresAt(scheduled("reminder", own, inAWeek), RECEIVED)).isEqualTo(own);
    }

    private static SendJob scheduled(String category, Instant expiresAt, Instant sendAt) {
        return new SendJob(2, "m", null, null, null, category, "a@example.com", List.of("b@example.com"), null,
                null, null, "s", "t", null, null, null, null, null, expiresAt, null, null, null, sendAt);
    }

    @Test
    void otherCategoriesFallBackToTheDefault() {
        ValidityWindow w = window(Map.of("mailroom.validity.ttl.password_reset", "PT15M",
                "mailroom.validity.default-ttl", "P3D"));
        assertThat(w.expiresAt(job("invoice", null), RECEIVED)).isEqualTo(RECEIVED.plusSeconds(3 * 86400));
        assertThat(w.expiresAt(job(null, null), RECEIVED)).isEqualTo(RECEIVED.plusSeconds(3 * 86400));
    }

    @Test
    void noneMeansNoWindow() {
        assertThat(window(Map.of("mailroom.validity.default-ttl", "none")).expiresAt(job("x", null), RECEIVED)).isNull();
        assertThat(window(Map.of()).expiresAt(job("x", null), RECEIVED)).isNull();
    }

    @Test
    void badDurationsNameTheirKey() {
        assertThatThrownBy(() -> window(Map.of("mailroom.validity.ttl.x", "15 minutes")).expiresAt(job("x", null), RECEIVED))
                .hasMessageContaining("mailroom.validity.ttl.x");
        assertThatThrownBy(() -> window(Map.of("mailroom.validity.default-ttl", "-PT1M")).expiresAt(job(null, null), RECEIVED))
                .hasMessageContaining("positive");
    }
}
