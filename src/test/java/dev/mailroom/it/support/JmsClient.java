package dev.mailroom.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

/**
 * An external JMS client of Mailroom's embedded broker, written the way the README tells users to write one:
 * {@code new ActiveMQConnectionFactory("tcp://127.0.0.1:<artemis port>", "mailroom", "mailroom")} and
 * {@code session.createQueue("mail.send")} (core queue names equal the JMS names, no legacy prefix).
 *
 * <p>One connection is kept open and reused; when the broker goes away (server killed or restarted) the
 * connection's exception listener marks it broken and the next call opens a new one. Nothing is retried
 * automatically (a retried send could duplicate a job); a call that fails throws. All methods are synchronized.
 */
public final class JmsClient implements AutoCloseable {

    /** The embedded default's documented broker credentials. */
    public static final String DEFAULT_USER = "mailroom";
    public static final String DEFAULT_PASSWORD = "mailroom";

    private static final int BATCH = 100;

    private final String brokerUrl;
    private final ActiveMQConnectionFactory factory;
    private Connection connection;
    private volatile boolean broken;
    private boolean closed;

    public JmsClient(String brokerUrl, String user, String password) {
        this.brokerUrl = brokerUrl;
        this.factory = new ActiveMQConnectionFactory(brokerUrl, user, password);
    }

    /** Client for {@code tcp://127.0.0.1:<port>} with the default credentials. */
    public static JmsClient forPort(int artemisPort) {
        return new JmsClient("tcp://127.0.0.1:" + artemisPort, DEFAULT_USER, DEFAULT_PASSWORD);
    }

    public String brokerUrl() {
        return brokerUrl;
    }

    public void sendText(String queue, String body) {
        sendText(queue, body, Map.of());
    }

    /**
     * Sends a persistent text message. Property values may be String, Boolean, Byte, Short, Integer, Long, Float or
     * Double; the keys {@code JMSCorrelationID} and {@code JMSType} set those headers instead.
     */
    public synchronized void sendText(String queue, String body, Map<String, Object> properties) {
        inSession(false, session -> {
            TextMessage m = session.createTextMessage(body);
            applyProperties(m, properties);
            try (MessageProducer p = session.createProducer(session.createQueue(queue))) {
                p.send(m);
            }
            return null;
        }, "send a text message to " + queue);
    }

    public synchronized void sendBytes(String queue, byte[] body) {
        inSession(false, session -> {
            BytesMessage m = session.createBytesMessage();
            m.writeBytes(body);
            try (MessageProducer p = session.createProducer(session.createQueue(queue))) {
                p.send(m);
            }
            return null;
        }, "send a bytes message to " + queue);
    }

    /** Sends all bodies as text messages in one transacted session, committing every 100 and at the end. */
    public synchronized void sendAll(String queue, List<String> bodies) {
        sendAll(queue, bodies, body -> Map.of());
    }

    /** As {@link #sendAll(String, List)}, each message with the properties {@code properties} gives its body. */
    public synchronized void sendAll(String queue, List<String> bodies,
                                     java.util.function.Function<String, Map<String, Object>> properties) {
        inSession(true, session -> {
            try (MessageProducer p = session.createProducer(session.createQueue(queue))) {
                int inBatch = 0;
                for (String body : bodies) {
                    TextMessage m = session.createTextMessage(body);
                    applyProperties(m, properties.apply(body));
                    p.send(m);
                    if (++inBatch == BATCH) {
                        session.commit();
                        inBatch = 0;
                    }
                }
                if (inBatch > 0) {
                    session.commit();
                }
            }
            return null;
        }, "send " + bodies.size() + " messages to " + queue);
    }

    /**
     * The messages currently on the queue, oldest first, without consuming them. Bodies and properties are read
     * while the session is open, so they stay readable afterwards.
     */
    public synchronized List<Message> browse(String queue) {
        return browse(queue, null);
    }

    /** The messages on the queue that match a JMS message selector (null: all of them). */
    public synchronized List<Message> browse(String queue, String selector) {
        return inSession(false, session -> {
            List<Message> out = new ArrayList<>();
            try (QueueBrowser browser = session.createBrowser(session.createQueue(queue), selector)) {
                Enumeration<?> e = browser.getEnumeration();
                while (e.hasMoreElements()) {
                    Message m = (Message) e.nextElement();
                    materialise(m);
                    out.add(m);
                }
            }
            return out;
        }, "browse " + queue);
    }

    /** Number of messages on the queue right now (by browsing). */
    public int depth(String queue) {
        return browse(queue).size();
    }

    /** Receives (and acknowledges) one message, or returns null if none arrives within the timeout. */
    public synchronized Message receive(String queue, Duration timeout) {
        return inSession(false, session -> {
            try (MessageConsumer c = session.createConsumer(session.createQueue(queue))) {
                Message m = timeout.isZero() ? c.receiveNoWait() : c.receive(Math.max(1, timeout.toMillis()));
                if (m != null) {
                    materialise(m);
                }
                return m;
            }
        }, "receive from " + queue);
    }

    /**
     * Receives and acknowledges every message currently on the queue (one consumer; stops when none arrives
     * within 500 ms).
     */
    public synchronized List<Message> drain(String queue) {
        return inSession(false, session -> {
            List<Message> out = new ArrayList<>();
            try (MessageConsumer c = session.createConsumer(session.createQueue(queue))) {
                Message m;
                while ((m = c.receive(500)) != null) {
                    materialise(m);
                    out.add(m);
                }
            }
            return out;
        }, "drain " + queue);
    }

    /** Closes the current connection; the next call opens a new one. */
    public synchronized void reconnect() {
        closeConnection();
    }

    /** Closes the connection and the factory; the client cannot be used afterwards. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            closeConnection();
            factory.close();
        }
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "JmsClient[" + brokerUrl + "]";
    }

    // ------------------------------------------------------------------ internals

    @FunctionalInterface
    private interface SessionWork<T> {
        T run(Session session) throws JMSException;
    }

    private <T> T inSession(boolean transacted, SessionWork<T> work, String what) {
        try {
            Connection c = connection();
            try (Session s = c.createSession(transacted, transacted ? Session.SESSION_TRANSACTED : Session.AUTO_ACKNOWLEDGE)) {
                return work.run(s);
            }
        } catch (JMSException | RuntimeException e) {
            broken = true;
            throw new IllegalStateException("JMS: could not " + what + " on " + brokerUrl + ": " + e, e);
        }
    }

    private Connection connection() throws JMSException {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (connection != null && broken) {
            closeConnection();
        }
        if (connection == null) {
            Connection c = factory.createConnection();
            try {
                c.setExceptionListener(ex -> broken = true);
                c.start();
            } catch (JMSException e) {
                try {
                    c.close();
                } catch (JMSException ignored) {
                    // broken anyway
                }
                throw e;
            }
            connection = c;
            broken = false;
        }
        return connection;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (JMSException | RuntimeException ignored) {
                // the broker may be gone
            }
            connection = null;
        }
        broken = false;
    }

    private static void applyProperties(Message m, Map<String, Object> properties) throws JMSException {
        for (Map.Entry<String, Object> p : properties.entrySet()) {
            switch (p.getKey()) {
                case "JMSCorrelationID" -> m.setJMSCorrelationID(String.valueOf(p.getValue()));
                case "JMSType" -> m.setJMSType(String.valueOf(p.getValue()));
                default -> m.setObjectProperty(p.getKey(), p.getValue());
            }
        }
    }

    /** Reads body and properties once so they are decoded while the session is still open. */
    private static void materialise(Message m) throws JMSException {
        if (m instanceof TextMessage t) {
            t.getText();
        } else if (m instanceof BytesMessage b) {
            b.getBodyLength();
        }
        Enumeration<?> names = m.getPropertyNames();
        while (names.hasMoreElements()) {
            m.getObjectProperty((String) names.nextElement());
        }
    }
}
