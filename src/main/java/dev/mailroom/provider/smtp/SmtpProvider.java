package dev.mailroom.provider.smtp;

import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.provider.SendCheckpoint;
import jakarta.mail.Address;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/**
 * Sends one mail per SMTP connection through Jakarta Mail (the Angus implementation WildFly ships).
 *
 * <p>Two things make this more than {@code Transport.send}:
 * <ul>
 *   <li>The {@code Message-ID} is derived only from the idempotency key ({@link #messageIdFor}), so a
 *       retried or replayed job carries the same id and duplicates can be recognised downstream.</li>
 *   <li>The transport is a {@link CheckpointingSmtpTransport}: the checkpoint runs right before the
 *       final "." of DATA. Until that dot is written the relay must discard the incomplete transaction,
 *       so a fault before it is {@code NOT_CONNECTED} (nothing took effect) and a fault after it is
 *       {@code AMBIGUOUS} unless the relay gave a definite answer.</li>
 * </ul>
 *
 * <p>What a failure means is read by {@link SmtpReplies}. SMTP does not deduplicate, so
 * {@link #dedupesByIdempotencyKey()} is false. A mail our own code should never have built (CR/LF in a header value, a job header overriding {@code From}, an
 * unparseable address) is refused with {@link IllegalArgumentException} before anything is written.
 */
public final class SmtpProvider implements MailProvider {

    public static final String NAME = "smtp";
    public static final String HEADER_MESSAGE_ID = "X-Mailroom-Message-Id";
    public static final String HEADER_IDEMPOTENCY_KEY = "X-Mailroom-Idempotency-Key";

    /** Headers the job may not set: they are ours, derived from job fields, or define the MIME structure. */
    static final Set<String> RESERVED_HEADERS = Set.of(
            "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "message-id", "date",
            "mime-version", "content-type", "content-transfer-encoding", "return-path", "list-unsubscribe",
            "list-unsubscribe-post",
            HEADER_MESSAGE_ID.toLowerCase(Locale.ROOT), HEADER_IDEMPOTENCY_KEY.toLowerCase(Locale.ROOT));

    private static final Pattern HEADER_NAME = Pattern.compile("[\\x21-\\x39\\x3B-\\x7E]+");

    /** Every provider's sockets: the factory holds nothing but what each thread connected last. */
    private static final RelaySockets RELAY_SOCKETS = new RelaySockets();

    private final SmtpSettings settings;
    private final Clock clock;
    private final Session session;

    public SmtpProvider(SmtpSettings settings) {
        this(settings, Clock.systemUTC());
    }

    /** @param clock source of the {@code Date} header */
    public SmtpProvider(SmtpSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.session = Session.getInstance(sessionProperties(settings));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean dedupesByIdempotencyKey() {
        return false;
    }

    /**
     * The stable {@code Message-ID} of every send of the effect {@code idempotencyKey}:
     * {@code <} + the first 32 hex digits of SHA-256(key) + {@code @} + domain + {@code >}.
     */
    public static String messageIdFor(String idempotencyKey, String messageIdDomain) {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(idempotencyKey.getBytes(StandardCharsets.UTF_8));
            return "<" + HexFormat.of().formatHex(hash).substring(0, 32) + "@" + messageIdDomain + ">";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JRE", e);
        }
    }

    @Override
    public ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint) {
        Objects.requireNonNull(mail, "mail");
        Objects.requireNonNull(checkpoint, "checkpoint");
        String messageId = messageIdFor(effectKey(mail), settings.messageIdDomain());
        MimeMessage message = buildMessage(mail, messageId);
        Address[] envelope = envelopeRecipients(mail);
        CheckpointingSmtpTransport transport = new CheckpointingSmtpTransport(session,
                new URLName("smtp", settings.host(), settings.port(), null, null, null), checkpoint);
        try {
            transport.connect(settings.host(), settings.port(),
                    settings.authenticates() ? settings.username() : null,
                    settings.authenticates() ? settings.password() : null);
            transport.watch(RELAY_SOCKETS.claim());
            transport.sendMessage(message, envelope);
            String text = SmtpReplies.trimEnd(transport.getLastServerResponse());
            return new ProviderResponse(Status.ACCEPTED, NAME, String.valueOf(transport.getLastReturnCode()),
                    SmtpReplies.enhancedCode(text), text, messageId, null, null);
        } catch (MessagingException e) {
            return SmtpReplies.outcomeOf(e, transport);
        } finally {
            RELAY_SOCKETS.claim(); // a connect that failed half-way leaves nothing behind on this thread
            closeQuietly(transport);
        }
    }

    // ---------------------------------------------------------------- the message

    private MimeMessage buildMessage(OutboundMail mail, String messageId) {
        try {
            StableMimeMessage msg = new StableMimeMessage(session, messageId);
            msg.setFrom(address(mail.from(), "from"));
            if (!mail.to().isEmpty()) {
                msg.setRecipients(RecipientType.TO, addresses(mail.to(), "to"));
            }
            if (!mail.cc().isEmpty()) {
                msg.setRecipients(RecipientType.CC, addresses(mail.cc(), "cc"));
            }
            // bcc: envelope only, never a header
            if (mail.replyTo() != null) {
                msg.setReplyTo(new Address[] {address(mail.replyTo(), "reply_to")});
            }
            msg.setSubject(headerSafe(mail.subject() == null ? "" : mail.subject(), "subject"), "UTF-8");
            msg.setSentDate(Date.from(clock.instant()));
            MimeContent.set(msg, mail.text(), mail.html(), mail.attachments());
            for (Map.Entry<String, String> h : new TreeMap<>(mail.headers()).entrySet()) {
                setHeader(msg, checkedJobHeaderName(h.getKey()), h.getValue());
            }
            if (mail.unsubscribe() != null) {
                for (Map.Entry<String, String> h : mail.unsubscribe().headers().entrySet()) {
                    setHeader(msg, h.getKey(), h.getValue());
                }
            }
            if (mail.messageId() != null) {
                setHeader(msg, HEADER_MESSAGE_ID, mail.messageId());
            }
            setHeader(msg, HEADER_IDEMPOTENCY_KEY, effectKey(mail));
            msg.saveChanges(); // sendMessage() does not; this is where updateMessageID() runs
            return msg;
        } catch (MessagingException e) {
            throw new IllegalArgumentException("cannot build the MIME message: " + e.getMessage(), e);
        }
    }

    private static void setHeader(MimeMessage msg, String name, String value) throws MessagingException {
        String safe = headerSafe(value == null ? "" : value, name);
        try {
            String encoded = MimeUtility.encodeText(safe, "UTF-8", null);
            msg.setHeader(name, MimeUtility.fold(name.length() + 2, encoded));
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("UTF-8 is required of every JRE", e);
        }
    }

    private static String checkedJobHeaderName(String name) {
        if (name == null || !HEADER_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid header name: " + name);
        }
        if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("header " + name + " is set by mailroom, not by the job");
        }
        return name;
    }

    /** CR or LF in a header value would let the job write headers of its own choosing. */
    private static String headerSafe(String value, String what) {
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("CR/LF in " + what + " refused (header injection)");
        }
        return value;
    }

    private static InternetAddress address(String mailbox, String field) {
        if (mailbox == null) {
            throw new IllegalArgumentException(field + " address is required");
        }
        headerSafe(mailbox, field);
        try {
            InternetAddress a = new InternetAddress(mailbox, true);
            if (a.getPersonal() != null) {
                a.setPersonal(a.getPersonal(), "UTF-8"); // RFC 2047-encode a non-ASCII display name
            }
            return a;
        } catch (AddressException | UnsupportedEncodingException e) {
            throw new IllegalArgumentException("invalid " + field + " address: " + mailbox, e);
        }
    }

    private static InternetAddress[] addresses(List<String> mailboxes, String field) {
        return mailboxes.stream().map(m -> address(m, field)).toArray(InternetAddress[]::new);
    }

    private static Address[] envelopeRecipients(OutboundMail mail) {
        List<InternetAddress> all = new ArrayList<>();
        all.addAll(List.of(addresses(mail.to(), "to")));
        all.addAll(List.of(addresses(mail.cc(), "cc")));
        all.addAll(List.of(addresses(mail.bcc(), "bcc")));
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no recipients");
        }
        return all.toArray(Address[]::new);
    }

    private static String effectKey(OutboundMail mail) {
        String key = mail.idempotencyKey() != null ? mail.idempotencyKey() : mail.messageId();
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("idempotency key (or message id) is required");
        }
        return key;
    }

    private static void closeQuietly(SMTPTransport transport) {
        try {
            transport.close();
        } catch (MessagingException | RuntimeException ignored) {
            // the outcome is decided; a failing QUIT changes nothing about it
        }
    }

    private static Properties sessionProperties(SmtpSettings s) {
        Properties p = new Properties();
        p.setProperty("mail.smtp.host", s.host());
        p.setProperty("mail.smtp.port", String.valueOf(s.port()));
        p.setProperty("mail.smtp.connectiontimeout", String.valueOf(s.connectTimeout().toMillis()));
        p.setProperty("mail.smtp.timeout", String.valueOf(s.readTimeout().toMillis()));
        p.setProperty("mail.smtp.writetimeout", String.valueOf(s.readTimeout().toMillis()));
        p.setProperty("mail.smtp.starttls.enable", String.valueOf(s.startTls() != SmtpSettings.StartTls.NONE));
        p.setProperty("mail.smtp.starttls.required", String.valueOf(s.startTls() == SmtpSettings.StartTls.REQUIRED));
        p.setProperty("mail.smtp.ssl.checkserveridentity", "true");
        p.setProperty("mail.smtp.auth", String.valueOf(s.authenticates()));
        if (s.heloName() != null) {
            p.setProperty("mail.smtp.localhost", s.heloName());
        }
        // All recipients or none: a partial send would make one job half sent.
        p.setProperty("mail.smtp.sendpartial", "false");
        // DATA, never BDAT: the point of no return is the final dot, which only finishData() writes.
        p.setProperty("mail.smtp.chunksize", "0");
        // No QUIT after a refused greeting: its 221 would overwrite the refusal we report.
        p.setProperty("mail.smtp.quitonsessionreject", "false");
        // Our own plain sockets (an instance, so put, not setProperty): the transport looks at the relay's side
        // of the connection right before the final dot (CheckpointingSmtpTransport#relayEndedTransaction).
        p.put("mail.smtp.socketFactory", RELAY_SOCKETS);
        // ...and no second, plain socket when ours fails to connect (Angus's default falls back): a relay that
        // resets connections would see two per call, and a breaker's probe must be one connection per delay
        // (BreakerOutageIT counted 236 where 200 were allowed, every extra one a 'Connection reset by peer')
        p.setProperty("mail.smtp.socketFactory.fallback", "false");
        return p;
    }

    // ---------------------------------------------------------------- the two Jakarta Mail subclasses

    /** A MimeMessage whose Message-ID is ours: Jakarta Mail would otherwise replace it on saveChanges(). */
    static final class StableMimeMessage extends MimeMessage {
        private final String stableId;

        StableMimeMessage(Session session, String stableId) {
            super(session);
            this.stableId = stableId;
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", stableId);
        }
    }
}
