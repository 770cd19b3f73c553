package dev.mailroom.reconcile;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One provider event in the one model every profile maps to — django-anymail's {@code AnymailTrackingEvent}
 * — plus the two ids a job is matched by: the provider's message id recorded at send, else Mailroom's
 * {@code message_id} that every profile sends along.
 */
public record TrackingEvent(EventType eventType, String providerMessageId, String messageId, String recipient,
                            Instant timestamp, String description, String mtaResponse, String rejectReason,
                            List<String> tags, Map<String, String> metadata) {

    /** One line for the job's timeline: the provider's verbatim text is kept. */
    public String timelineText() {
        StringBuilder out = new StringBuilder(eventType.name());
        if (recipient != null) {
            out.append(" for ").append(recipient);
        }
        if (description != null) {
            out.append(": ").append(description);
        }
        if (mtaResponse != null) {
            out.append(" [").append(mtaResponse).append(']');
        }
        return out.toString();
    }
}
