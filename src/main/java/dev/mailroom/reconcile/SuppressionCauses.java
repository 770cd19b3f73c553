package dev.mailroom.reconcile;

import dev.mailroom.suppression.SuppressionReason;
import java.util.Optional;
import java.util.Set;

/**
 * Which normalised provider events put their recipient on the suppression list, and why: a pure table, tested
 * row by row in {@code SuppressionCausesTest} (every reason an event can give is reached).
 *
 * <ol>
 *   <li>{@code bounced} (a hard bounce; a soft one is {@code deferred}): {@code hard_bounce}</li>
 *   <li>{@code complained}: {@code complaint}</li>
 *   <li>{@code unsubscribed} (the provider keeps the address off its sends from now on): {@code provider_suppression}</li>
 *   <li>{@code rejected} because the provider's own list holds the address ({@code reject_reason} {@code bounced},
 *       {@code spam}, {@code unsubscribed} or {@code suppressed}, as anymail names them): {@code provider_suppression}</li>
 *   <li>anything else: not suppressed (a rejection for another reason, a deferral, a delivery, an open...)</li>
 * </ol>
 */
public final class SuppressionCauses {

    /** anymail's {@code reject_reason}s that mean "the provider would not send to this address again". */
    static final Set<String> SUPPRESSING_REJECTIONS = Set.of("bounced", "spam", "unsubscribed", "suppressed");

    private SuppressionCauses() {
    }

    public static Optional<SuppressionReason> of(TrackingEvent event) {
        return of(event.eventType(), event.rejectReason());
    }

    static Optional<SuppressionReason> of(EventType type, String rejectReason) {
        return switch (type) {
            case bounced -> Optional.of(SuppressionReason.hard_bounce);
            case complained -> Optional.of(SuppressionReason.complaint);
            case unsubscribed -> Optional.of(SuppressionReason.provider_suppression);
            case rejected -> rejectReason != null && SUPPRESSING_REJECTIONS.contains(rejectReason)
                    ? Optional.of(SuppressionReason.provider_suppression) : Optional.empty();
            default -> Optional.empty();
        };
    }
}
