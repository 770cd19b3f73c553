package dev.mailroom.bench.naive;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The naive bean's record of a message it sent: one row, keyed by the job's message_id. */
@Entity
@Table(name = "naive_mail")
public class NaiveMail {

    @Id
    @Column(name = "message_id")
    public String messageId;
    @Column(name = "from_address")
    public String from;
    @Column(name = "to_addresses")
    public String to;
    @Column(name = "subject")
    public String subject;
    @Column(name = "text_body")
    public String text;
    @Column(name = "sent_at")
    public Instant sentAt;
}
