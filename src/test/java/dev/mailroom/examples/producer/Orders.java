package dev.mailroom.examples.producer;

import dev.mailroom.client.JmsMailroomClient;
import dev.mailroom.client.MailJob;
import dev.mailroom.client.MailroomClient;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A producer's business service (docs/producers.md, "In a Jakarta EE transaction"): an order row and its confirmation
 * mail in one JTA transaction. The connection factory is WildFly's JTA-enlisted pooled one ({@code java:/JmsXA}), so
 * the job is on the queue if and only if the order commits; the queue is the one WildFly binds in JNDI (its pooled
 * factory would read a bare "mail.send" as the legacy "jms.queue.mail.send"). ProducerTransactionIT deploys it beside
 * Mailroom.
 */
@ApplicationScoped
public class Orders {

    @Resource(lookup = "java:jboss/datasources/MailroomDS")
    DataSource db;

    @Resource(lookup = "java:/JmsXA")
    ConnectionFactory jms;

    @Resource(lookup = "java:/jms/queue/mail.send")
    Queue sendQueue;

    private JmsMailroomClient mail;

    @PostConstruct
    void start() {
        mail = MailroomClient.over(jms).toQueue(sendQueue);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table if not exists example_order (id varchar(100) primary key, email varchar(300))");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create example_order", e);
        }
    }

    /**
     * Records the order and sends its confirmation; {@code failAfterSending} throws once both are done, as a later
     * step of the same business transaction would, and rolls both back.
     *
     * @return the confirmation's message id
     */
    @Transactional
    public String place(String orderId, String email, boolean failAfterSending) throws SQLException {
        try (Connection c = db.getConnection();
             PreparedStatement insert = c.prepareStatement("insert into example_order (id, email) values (?, ?)")) {
            insert.setString(1, orderId);
            insert.setString(2, email);
            insert.executeUpdate();
        }
        String messageId = confirm(mail, orderId, email, "order-" + orderId);
        if (failAfterSending) {
            throw new IllegalStateException("order " + orderId + " failed after its mail was sent");
        }
        return messageId;
    }

    /**
     * Sends the confirmation again under a new message id and the same idempotency key: still one mail. With the
     * broker's duplicate detection (the default) the broker refuses it and this transaction fails at its commit;
     * without, it commits and Mailroom suppresses the second job.
     */
    @Transactional
    public String confirmAgain(String orderId, String email, String messageId, boolean brokerDuplicateDetection) {
        return confirm(brokerDuplicateDetection ? mail : mail.withoutBrokerDuplicateDetection(), orderId, email, messageId);
    }

    private static String confirm(MailroomClient client, String orderId, String email, String messageId) {
        return client.send(MailJob.to(email)
                .from("Example Shop <shop@example.com>")
                .subject("Order " + orderId + " confirmed")
                .text("Thank you for order " + orderId + ".")
                .category("order_confirmation")
                .messageId(messageId)
                .idempotencyKey("order-confirmation/" + orderId)
                .build());
    }

    /** Whether the order's row exists (committed). */
    public boolean exists(String orderId) throws SQLException {
        try (Connection c = db.getConnection();
             PreparedStatement select = c.prepareStatement("select count(*) from example_order where id = ?")) {
            select.setString(1, orderId);
            try (ResultSet r = select.executeQuery()) {
                r.next();
                return r.getInt(1) == 1;
            }
        }
    }
}
