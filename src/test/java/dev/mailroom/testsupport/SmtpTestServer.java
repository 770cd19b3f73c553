package dev.mailroom.testsupport;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetHeaders;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;

/**
 * A real SMTP server on 127.0.0.1 (subethasmtp) that records what it took and can be told how to
 * answer: a queued reply for the next DATA or RCPT TO, or a delay before the DATA reply to provoke a
 * client timeout. Used by the provider tests and by the integration tests against a running server.
 *
 * <p>A mail counts as {@linkplain #received() received} only when its DATA was complete (the final
 * dot arrived) and it was answered 250. A mail whose 250 was {@linkplain #setDelayBeforeReply delayed}
 * counts even if the client gave up waiting: the server took it, which is exactly the ambiguity the
 * delay is there to provoke. A DATA that ended without its final dot is counted as
 * {@linkplain #abandonedCount() abandoned} instead.
 */
public final class SmtpTestServer implements AutoCloseable {

    /** One mail the server took. {@code messageId} is the Message-ID header, angle brackets included. */
    public record ReceivedMail(String messageId, String envelopeFrom, List<String> envelopeRecipients,
                               byte[] raw, Instant at) {
        public ReceivedMail {
            envelopeRecipients = List.copyOf(envelopeRecipients);
        }
    }

    private record Reply(int code, String text) { }

    private volatile SMTPServer server;
    private final Clock clock = Clock.systemUTC();
    private final Object lock = new Object();
    private final List<ReceivedMail> received = new ArrayList<>(); // guarded by lock
    private int abandoned; // guarded by lock
    private final Queue<Reply> dataReplies = new ConcurrentLinkedQueue<>();
    private final Queue<Reply> recipientReplies = new ConcurrentLinkedQueue<>();
    private volatile Duration delayBeforeReply = Duration.ZERO;
    /** Per Message-ID: how many more of its DATA to refuse, and with what. */
    private final Map<String, Refusal> refusals = new java.util.concurrent.ConcurrentHashMap<>();

    private record Refusal(int left, Reply reply) { }
    private volatile Reply outage;

    private SmtpTestServer(int port) {
        this.server = build(port);
    }

    private SMTPServer build(int port) {
        return SMTPServer.port(port)
                .bindAddress(loopback())
                .hostName("mailroom-test-smtp")
                .insertReceivedHeaders(false) // raw() is exactly what the client wrote
                .messageHandlerFactory(this::newHandler)
                .build();
    }

    /**
     * An outage of the relay itself: stops listening (the port refuses connections, or whatever binds it
     * next answers) while keeping what was received; {@link #startListening} comes back on the same port.
     */
    public synchronized int stopListening() {
        int port = port();
        server.stop();
        return port;
    }

    /** Listens again on {@code port} (the one {@link #stopListening} returned). */
    public synchronized void startListening(int port) {
        server = build(port);
        server.start();
    }

    /** Starts a server on an ephemeral loopback port. */
    public static SmtpTestServer start() {
        return start(0);
    }

    /** Starts a server on the given loopback port (0: ephemeral). */
    public static SmtpTestServer start(int port) {
        SmtpTestServer s = new SmtpTestServer(port);
        s.server.start();
        return s;
    }

    /** The port it listens on (the allocated one when started with 0). */
    public int port() {
        return server.getPortAllocated();
    }

    @Override
    public void close() {
        server.stop();
    }

    /** The next DATA is answered with this reply instead of 250 (FIFO). */
    public void enqueueReply(int code, String text) {
        dataReplies.add(new Reply(code, text));
    }

    /**
     * The next {@code times} DATA of the mail whose Message-ID is {@code messageId} (angle brackets included) are
     * answered with this reply, whichever comes in between; before the FIFO replies.
     */
    public void refuse(String messageId, int times, int code, String text) {
        refusals.put(messageId, new Refusal(times, new Reply(code, text)));
    }

    /** How many {@link #enqueueReply queued DATA replies} have not been used yet. */
    public int queuedReplies() {
        return dataReplies.size();
    }

    /** The next RCPT TO is answered with this reply instead of 250 (FIFO). */
    public void enqueueRecipientReply(int code, String text) {
        recipientReplies.add(new Reply(code, text));
    }

    /**
     * An outage: while set, every DATA is answered with this reply (after the queued replies are used
     * up); {@code null} ends it.
     */
    public void setOutage(Integer code, String text) {
        outage = code == null ? null : new Reply(code, text);
    }

    /** Sleep this long after the final dot before answering DATA (zero: answer at once). */
    public void setDelayBeforeReply(Duration d) {
        delayBeforeReply = d == null ? Duration.ZERO : d;
    }

    /** A snapshot of the mail taken so far, oldest first. */
    public List<ReceivedMail> received() {
        synchronized (lock) {
            return List.copyOf(received);
        }
    }

    /** How often each Message-ID was taken (mail without one is not counted here). */
    public Map<String, Integer> countsByMessageId() {
        Map<String, Integer> counts = new TreeMap<>();
        for (ReceivedMail m : received()) {
            if (m.messageId() != null) {
                counts.merge(m.messageId(), 1, Integer::sum);
            }
        }
        return counts;
    }

    public int receivedCount() {
        synchronized (lock) {
            return received.size();
        }
    }

    /** Waits until at least {@code n} mails were taken; false if the timeout passed first. */
    public boolean awaitReceived(int n, Duration timeout) {
        return await(() -> received.size() >= n, timeout);
    }

    /** How many DATA transfers ended without their final dot (the client went away mid-message). */
    public int abandonedCount() {
        synchronized (lock) {
            return abandoned;
        }
    }

    /** Waits until at least {@code n} DATA transfers were abandoned; false if the timeout passed first. */
    public boolean awaitAbandoned(int n, Duration timeout) {
        return await(() -> abandoned >= n, timeout);
    }

    /** Forgets received and abandoned mail, queued replies and the reply delay. */
    public void reset() {
        dataReplies.clear();
        refusals.clear();
        recipientReplies.clear();
        delayBeforeReply = Duration.ZERO;
        outage = null;
        synchronized (lock) {
            received.clear();
            abandoned = 0;
        }
    }

    private boolean await(java.util.function.BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private MessageHandler newHandler(MessageContext context) {
        return new Handler();
    }

    /** One per SMTP session; subethasmtp calls it from the session's thread. */
    private final class Handler implements MessageHandler {
        private String from;
        private final List<String> recipients = new ArrayList<>();

        @Override
        public void from(String from) {
            this.from = from;
            recipients.clear();
        }

        @Override
        public void recipient(String recipient) throws RejectException {
            Reply reply = recipientReplies.poll();
            if (reply != null) {
                throw new RejectException(reply.code(), reply.text());
            }
            recipients.add(recipient);
        }

        @Override
        public String data(InputStream data) throws RejectException, IOException {
            byte[] raw;
            try {
                raw = data.readAllBytes(); // ends at the final dot; throws if the connection ends before it
            } catch (IOException e) {
                synchronized (lock) {
                    abandoned++;
                    lock.notifyAll();
                }
                throw e;
            }
            sleep(delayBeforeReply);
            Reply reply = refusalOf(messageIdOf(raw));
            if (reply == null) {
                reply = dataReplies.poll();
            }
            if (reply == null) {
                reply = outage;
            }
            if (reply != null) {
                throw new RejectException(reply.code(), reply.text());
            }
            ReceivedMail mail = new ReceivedMail(messageIdOf(raw), from, recipients, raw, clock.instant());
            synchronized (lock) {
                received.add(mail);
                lock.notifyAll();
            }
            return "2.0.0 Ok: queued as " + mail.at().toEpochMilli();
        }

        @Override
        public void done() {
            // nothing to release
        }
    }

    /** The refusal this mail is due, if one is set for it and not used up (counted down here). */
    private Reply refusalOf(String messageId) {
        if (messageId == null) {
            return null;
        }
        Refusal[] used = new Refusal[1];
        refusals.computeIfPresent(messageId, (id, r) -> {
            used[0] = r;
            return r.left() > 1 ? new Refusal(r.left() - 1, r.reply()) : null;
        });
        return used[0] == null ? null : used[0].reply();
    }

    private static String messageIdOf(byte[] raw) {
        try {
            String id = new InternetHeaders(new ByteArrayInputStream(raw)).getHeader("Message-ID", null);
            return id == null ? null : id.trim();
        } catch (MessagingException e) {
            return null;
        }
    }

    private static void sleep(Duration d) {
        if (d.isZero() || d.isNegative()) {
            return;
        }
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByName("127.0.0.1");
        } catch (UnknownHostException e) {
            throw new UncheckedIOException(e);
        }
    }
}
