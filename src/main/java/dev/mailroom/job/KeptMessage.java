package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/**
 * A delivery's message as the broker handed it, kept in Mailroom's database to be put on its queue again later,
 * byte for byte (so the idempotency key and the Message-ID stay the same): the body, whether it was a text message,
 * and its trace context. Part of a held send ({@link HeldSend}) and of a job waiting for its key ({@link KeyWait}).
 */
@Embeddable
public class KeptMessage {

    private byte[] payload;
    @Column(name = "text_message")
    private boolean textMessage;
    private String traceparent;

    protected KeptMessage() {
    }

    KeptMessage(Incoming in) {
        this.payload = in.body();
        this.textMessage = in.textMessage();
        this.traceparent = in.traceparent();
    }

    public byte[] getPayload() { return payload; }
    public boolean isTextMessage() { return textMessage; }
    public String getTraceparent() { return traceparent; }
}
