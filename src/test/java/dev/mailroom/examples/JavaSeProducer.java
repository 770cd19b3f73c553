package dev.mailroom.examples;

import dev.mailroom.client.MailJob;
import dev.mailroom.client.MailroomClient;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * Sending a job from plain Java SE (docs/producers.md, "From Java SE"): the client jar, Artemis's JMS client and the
 * embedded default's broker user. ProducerExamplesIT runs it in a JVM of its own, on the client jar alone.
 *
 * <p>Arguments: the broker URL (default {@code tcp://127.0.0.1:61616}), the recipient (default alice@example.com).
 * Prints the job's message id.
 */
public final class JavaSeProducer {

    private JavaSeProducer() {
    }

    public static void main(String[] args) {
        String url = args.length > 0 ? args[0] : "tcp://127.0.0.1:61616";
        String to = args.length > 1 ? args[1] : "alice@example.com";
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url, "mailroom", "mailroom")) {
            MailroomClient mail = MailroomClient.over(factory);
            String messageId = mail.send(MailJob.to(to)
                    .from("Mailroom <noreply@example.com>")
                    .subject("Hello")
                    .text("Hi, this was sent from Java SE.")
                    .build());
            System.out.println(messageId);
        }
    }
}
