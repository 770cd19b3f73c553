package dev.mailroom.bench.naive;

import java.util.List;

import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.annotation.JsonbProperty;

/** The job's fields the plain beans use (JSON-B ignores the others), parsed from a delivery as a team would. */
public class BenchJob {

    static final Jsonb JSON = JsonbBuilder.create();

    @JsonbProperty("message_id")
    public String messageId;
    public String from;
    public List<String> to;
    public String subject;
    public String text;

    static BenchJob from(Message message) {
        try {
            return JSON.fromJson(message.getBody(String.class), BenchJob.class);
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
