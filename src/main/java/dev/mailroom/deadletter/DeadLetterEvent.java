package dev.mailroom.deadletter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One change of a dead letter's status, with who and why. */
@Entity
@Table(name = "dead_letter_event")
public class DeadLetterEvent {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "dead_letter_id")
    private Long deadLetterId;
    private Instant at;
    @Column(name = "from_status")
    private String fromStatus;
    @Column(name = "to_status")
    private String toStatus;
    private String actor;
    private String reason;

    protected DeadLetterEvent() {
    }

    DeadLetterEvent(Long deadLetterId, Instant at, String fromStatus, String toStatus, String actor, String reason) {
        this.deadLetterId = deadLetterId;
        this.at = at;
        this.fromStatus = fromStatus;
        this.toStatus = toStatus;
        this.actor = actor;
        this.reason = reason == null || reason.length() <= 2000 ? reason : reason.substring(0, 2000);
    }

    public Long getId() { return id; }
    public Long getDeadLetterId() { return deadLetterId; }
    public Instant getAt() { return at; }
    public String getFromStatus() { return fromStatus; }
    public String getToStatus() { return toStatus; }
    public String getActor() { return actor; }
    public String getReason() { return reason; }
}
