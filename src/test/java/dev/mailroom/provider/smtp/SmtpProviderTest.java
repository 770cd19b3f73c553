package dev.mailroom.provider.smtp;

import dev.mailroom.testsupport.CountingCheckpoint;
import dev.mailroom.testsupport.Ports;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.contract.Unsubscribe;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.provider.SendCheckpoint;
import dev.mailroom.testsupport.SmtpTestServer;
import dev.mailroom.testsupport.SmtpTestServer.ReceivedMail;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimeUtility;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link SmtpProvider} against a real SMTP server on loopback, and a scripted one for what it cannot do. */
class SmtpProviderTest {

    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final String DOMAIN = "mail.mailroom.test";
    private static SmtpTestServer server;

    private final CountingCheckpoint checkpoint = new CountingCheckpoint();

    @BeforeAll
    static void startServer() {
        server = SmtpTestServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void resetServer() {
        server.reset();
    }

    // ------------------------------------------------------------------ accepted mail

    @Test
    void acceptedMailCarriesAMessageIdDerivedOnlyFromTheIdempotencyKey() {
        ProviderResponse first = provider().send(mail("msg-1", "effect-A"), checkpoint);
        ProviderResponse retry = provider().send(mail("msg-1-replayed", "effect-A"), checkpoint);
        ProviderResponse other = provider().send(mail("msg-2", "effect-B"), checkpoint);

        String idA = expectedMessageId("effect-A");
        String idB = expectedMessageId("effect-B");
        assertThat(first.status()).isEqualTo(Status.ACCEPTED);
        assertThat(first.provider()).isEqualTo("smtp");
        assertThat(first.code()).isEqualTo("250");
        assertThat(first.enhancedCode()).isEqualTo("2.0.0");
        assertThat(first.text()).startsWith("250 2.0.0 Ok: queued as ");
        assertThat(first.errorType()).isNull();
        assertThat(first.providerMessageId()).isEqualTo(idA);
        assertThat(retry.providerMessageId()).isEqualTo(idA);
        assertThat(other.providerMessageId()).isEqualTo(idB).isNotEqualTo(idA);
        assertThat(server.received()).extracting(ReceivedMail::messageId).containsExactly(idA, idA, idB);
        assertThat(server.countsByMessageId()).containsExactlyInAnyOrderEntriesOf(Map.of(idA, 2, idB, 1));
        assertThat(SmtpProvider.messageIdFor("effect-A", DOMAIN)).isEqualTo(idA);
    }

    @Test
    void checkpointRunsExactlyOncePerSuccessfulSend() {
        CountingCheckpoint second = new CountingCheckpoint();

        provider().send(mail("m1", "k1"), checkpoint);
        provider().send(mail("m2", "k2"), second);

        assertThat(checkpoint.calls()).isEqualTo(1);
        assertThat(second.calls()).isEqualTo(1);
        assertThat(server.receivedCount()).isEqualTo(2);
    }

    @Test
    void bccIsAnEnvelopeRecipientButNeverAHeader() throws Exception {
        provider().send(mail("m1", "k1"), checkpoint);

        ReceivedMail got = server.received().get(0);
        assertThat(got.envelopeFrom()).isEqualTo("sender@example.com");
        assertThat(got.envelopeRecipients()).containsExactly("to@example.com", "cc@example.com", "hidden@example.com");
        MimeMessage parsed = parse(got);
        assertThat(parsed.getHeader("Bcc")).isNull();
        assertThat(new String(got.raw(), StandardCharsets.US_ASCII)).doesNotContain("hidden@example.com");
        assertThat(parsed.getHeader("To", ",")).isEqualTo("to@example.com");
        assertThat(parsed.getHeader("Cc", ",")).isEqualTo("cc@example.com");
        assertThat(((InternetAddress) parsed.getReplyTo()[0]).getAddress()).isEqualTo("reply@example.com");
    }

    @Test
    void textAndHtmlBecomeMultipartAlternativeInUtf8() throws Exception {
        provider().send(mail("m1", "k1"), checkpoint);

        MimeMessage parsed = parse(server.received().get(0));
        assertThat(parsed.getContentType()).startsWith("multipart/alternative");
        MimeMultipart parts = (MimeMultipart) parsed.getContent();
        assertThat(parts.getCount()).isEqualTo(2);
        assertThat(parts.getBodyPart(0).getContentType()).startsWith("text/plain").containsIgnoringCase("utf-8");
        assertThat(parts.getBodyPart(0).getContent()).isEqualTo("Hallo Jürgen");
        assertThat(parts.getBodyPart(1).getContentType()).startsWith("text/html").containsIgnoringCase("utf-8");
        assertThat(parts.getBodyPart(1).getContent()).isEqualTo("<p>Hallo Jürgen</p>");
        assertThat(parsed.getSubject()).isEqualTo("Grüße aus Köln");
        assertThat(((InternetAddress) parsed.getFrom()[0]).getPersonal()).isEqualTo("Zoë Sender");
        assertThat(parsed.getSentDate().toInstant()).isEqualTo(NOW);
    }

    @Test
    void htmlOnlyIsASingleHtmlPart() throws Exception {
        OutboundMail htmlOnly = new OutboundMail("m1", "k1", "sender@example.com", List.of("to@example.com"),
                null, null, null, "s", null, "<b>only</b>", null, null, null, null, null);

        provider().send(htmlOnly, checkpoint);

        MimeMessage parsed = parse(server.received().get(0));
        assertThat(parsed.getContentType()).startsWith("text/html");
        // the relay's copy ends with the line break DATA needs before its dot
        assertThat(((String) parsed.getContent()).stripTrailing()).isEqualTo("<b>only</b>");
    }

    @Test
    void customHeadersAndMailroomHeadersArrive() throws Exception {
        provider().send(mail("msg-42", "effect-42"), checkpoint);

        MimeMessage parsed = parse(server.received().get(0));
        assertThat(parsed.getHeader("X-Campaign", null)).isEqualTo("spring-sale");
        assertThat(parsed.getHeader("X-Mailroom-Message-Id", null)).isEqualTo("msg-42");
        assertThat(parsed.getHeader("X-Mailroom-Idempotency-Key", null)).isEqualTo("effect-42");
        assertThat(parsed.getMessageID()).isEqualTo(expectedMessageId("effect-42"));
    }

    @Test
    void aOneClickUnsubscribeArrivesAsRfc8058Says() throws Exception {
        // long enough that the header is folded on the wire: the relay's copy must unfold to the same list
        String url = "https://shop.example/unsubscribe?list=newsletter&token=" + "t".repeat(60);
        provider().send(withUnsubscribe(mail("m1", "k1"), new Unsubscribe(url, "unsubscribe@shop.example")),
                checkpoint);

        MimeMessage parsed = parse(server.received().get(0));
        String[] lists = parsed.getHeader("List-Unsubscribe");
        assertThat(lists).hasSize(1);
        // RFC 2369: a comma-separated list of <URI>; RFC 8058: one of them https, and exactly this POST header
        List<String> uris = Stream.of(MimeUtility.unfold(lists[0]).split(","))
                .map(String::strip).toList();
        assertThat(uris).containsExactly("<" + url + ">", "<mailto:unsubscribe@shop.example>");
        assertThat(parsed.getHeader("List-Unsubscribe-Post")).containsExactly("List-Unsubscribe=One-Click");
    }

    @Test
    void withoutAnUnsubscribeNeitherHeaderIsSet() throws Exception {
        provider().send(mail("m1", "k1"), checkpoint);

        MimeMessage parsed = parse(server.received().get(0));
        assertThat(parsed.getHeader("List-Unsubscribe")).isNull();
        assertThat(parsed.getHeader("List-Unsubscribe-Post")).isNull();
    }

    static Stream<Map<String, String>> forbiddenHeaders() {
        return Stream.of(
                Map.of("X-Campaign", "spring\r\nBcc: victim@example.com"),
                Map.of("X-Campaign", "line\nfeed"),
                Map.of("From", "ceo@example.com"),
                Map.of("bcc", "victim@example.com"),
                Map.of("Message-ID", "<chosen@example.com>"),
                Map.of("DATE", "Mon, 1 Jan 2024 00:00:00 +0000"),
                Map.of("X-Mailroom-Idempotency-Key", "other"),
                Map.of("List-Unsubscribe", "<https://evil.example/u>"),
                Map.of("list-unsubscribe-post", "List-Unsubscribe=One-Click"),
                Map.of("Bad Name", "x"));
    }

    @ParameterizedTest
    @MethodSource("forbiddenHeaders")
    void jobHeadersCannotInjectOrOverrideHeaders(Map<String, String> headers) {
        OutboundMail m = withHeaders(mail("m1", "k1"), headers);

        assertThatThrownBy(() -> provider().send(m, checkpoint)).isInstanceOf(IllegalArgumentException.class);

        assertThat(checkpoint.calls()).isZero();
        assertThat(server.receivedCount()).isZero();
    }

    @Test
    void crlfInTheSubjectIsRefused() {
        OutboundMail m = new OutboundMail("m1", "k1", "sender@example.com", List.of("to@example.com"), null, null,
                null, "hi\r\nBcc: victim@example.com", "t", null, null, null, null, null, null);

        assertThatThrownBy(() -> provider().send(m, checkpoint)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subject");
        assertThat(checkpoint.calls()).isZero();
    }

    // ------------------------------------------------------------------ definite refusals

    @Test
    void a550AfterTheDotIsRejectedWithCodeEnhancedCodeAndVerbatimText() {
        server.enqueueReply(550, "5.1.1 <to@example.com>: Recipient address rejected: User unknown");

        ProviderResponse r = provider().send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("550");
        assertThat(r.enhancedCode()).isEqualTo("5.1.1");
        assertThat(r.text()).isEqualTo("550 5.1.1 <to@example.com>: Recipient address rejected: User unknown");
        assertThat(r.errorType()).isNull();
        assertThat(r.providerMessageId()).isNull();
        assertThat(checkpoint.calls()).isEqualTo(1); // the answer came after the dot: a definite one all the same
        assertThat(server.receivedCount()).isZero();
    }

    @Test
    void a452OnRcptIsRejectedBeforeTheCheckpoint() {
        server.enqueueRecipientReply(452, "4.5.3 Too many recipients");

        ProviderResponse r = provider().send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("452");
        assertThat(r.enhancedCode()).isEqualTo("4.5.3");
        assertThat(r.text()).isEqualTo("452 4.5.3 Too many recipients");
        assertThat(checkpoint.calls()).isZero();
        assertThat(server.receivedCount()).isZero();
    }

    @Test
    void withSeveralFailedRecipientsTheFirstIsReported() {
        server.enqueueRecipientReply(550, "5.1.1 first: no such user");
        server.enqueueRecipientReply(452, "4.2.2 second: mailbox full");

        ProviderResponse r = provider().send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("550");
        assertThat(r.enhancedCode()).isEqualTo("5.1.1");
        assertThat(r.text()).isEqualTo("550 5.1.1 first: no such user");
    }

    @Test
    void a421IsRejectedWithItsCode() {
        server.enqueueReply(421, "4.7.0 Too many messages, try again later");

        ProviderResponse r = provider().send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("421");
        assertThat(r.enhancedCode()).isEqualTo("4.7.0");
        assertThat(r.text()).isEqualTo("421 4.7.0 Too many messages, try again later");
    }

    @Test
    void a421GreetingIsRejectedWithItsCode() throws Exception {
        try (ScriptedSmtp relay = new ScriptedSmtp("421 4.3.2 Service not available, closing channel",
                line -> line.startsWith("QUIT") ? "221 Bye" : "421 4.3.2 still closed")) {
            ProviderResponse r = provider(relay.port()).send(mail("m1", "k1"), checkpoint);

            assertThat(r.status()).isEqualTo(Status.REJECTED);
            assertThat(r.code()).isEqualTo("421");
            assertThat(r.enhancedCode()).isEqualTo("4.3.2");
            assertThat(r.text()).isEqualTo("421 4.3.2 Service not available, closing channel");
            assertThat(checkpoint.calls()).isZero();
        }
    }

    @Test
    void anAuthenticationRejectionIsRejected535NotANetworkFault() throws Exception {
        try (ScriptedSmtp relay = new ScriptedSmtp("220 scripted ESMTP", line -> {
            String cmd = line.toUpperCase();
            if (cmd.startsWith("EHLO")) {
                return "250-scripted\r\n250 AUTH PLAIN LOGIN";
            }
            return cmd.startsWith("QUIT") ? "221 Bye" : "535 5.7.8 Authentication credentials invalid";
        })) {
            SmtpSettings withAuth = new SmtpSettings("127.0.0.1", relay.port(), SmtpSettings.StartTls.NONE, "user",
                    "wrong", Duration.ofSeconds(2), Duration.ofSeconds(2), "client.test", DOMAIN);

            ProviderResponse r = new SmtpProvider(withAuth).send(mail("m1", "k1"), checkpoint);

            assertThat(r.status()).isEqualTo(Status.REJECTED);
            assertThat(r.code()).isEqualTo("535");
            assertThat(r.enhancedCode()).isEqualTo("5.7.8");
            assertThat(r.text()).contains("535 5.7.8 Authentication credentials invalid");
            assertThat(checkpoint.calls()).isZero();
            assertThat(relay.lines()).anyMatch(l -> l.startsWith("AUTH"))
                    .noneMatch(l -> l.startsWith("MAIL FROM"));
        }
    }

    @Test
    void replyTextIsBoundedTo2000Chars() {
        String longText = "5.7.1 " + "policy ".repeat(500);
        server.enqueueReply(554, longText);

        ProviderResponse r = provider().send(mail("m1", "k1"), checkpoint);

        assertThat(r.text()).hasSize(ProviderResponse.MAX_TEXT).isEqualTo(("554 " + longText).substring(0, 2000));
        assertThat(r.code()).isEqualTo("554");
        assertThat(r.enhancedCode()).isEqualTo("5.7.1");
    }

    // ------------------------------------------------------------------ no answer

    @Test
    void connectionRefusedIsNotConnected() throws IOException {
        ProviderResponse r = provider(Ports.unusedLoopbackPort()).send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
        assertThat(r.errorType()).isEqualTo("java.net.ConnectException");
        assertThat(r.code()).isNull();
        assertThat(r.text()).contains("Connection refused");
        assertThat(checkpoint.calls()).isZero();
    }

    @Test
    void startTlsRequiredButNotOfferedIsNotConnected() {
        SmtpSettings required = new SmtpSettings("127.0.0.1", server.port(), SmtpSettings.StartTls.REQUIRED, null,
                null, Duration.ofSeconds(2), Duration.ofSeconds(2), "client.test", DOMAIN);

        ProviderResponse r = new SmtpProvider(required).send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
        assertThat(r.errorType()).isEqualTo("jakarta.mail.MessagingException");
        assertThat(r.text()).containsIgnoringCase("STARTTLS");
        assertThat(checkpoint.calls()).isZero();
        assertThat(server.receivedCount()).isZero();
    }

    @Test
    void aTlsHandshakeFailureIsNotConnected() throws Exception {
        try (ScriptedSmtp relay = new ScriptedSmtp("220 scripted ESMTP", line -> {
            if (line.toUpperCase().startsWith("EHLO")) {
                return "250-scripted\r\n250 STARTTLS";
            }
            return line.toUpperCase().startsWith("STARTTLS") ? "220 2.0.0 Ready to start TLS" + ScriptedSmtp.HANG_UP
                    : "250 Ok";
        })) {
            SmtpSettings tls = new SmtpSettings("127.0.0.1", relay.port(), SmtpSettings.StartTls.REQUIRED, null, null,
                    Duration.ofSeconds(2), Duration.ofSeconds(2), "client.test", DOMAIN);

            ProviderResponse r = new SmtpProvider(tls).send(mail("m1", "k1"), checkpoint);

            assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
            assertThat(r.errorType()).isEqualTo("javax.net.ssl.SSLHandshakeException");
            assertThat(checkpoint.calls()).isZero();
        }
    }

    @Test
    void aReplyDelayedPastTheReadTimeoutIsAmbiguousAndTheServerHasTheMail() {
        // the read timeout bounds the greeting and every reply before the dot too: 300 ms failed there on a loaded
        // machine (NOT_CONNECTED), so it is a second, and the dot's reply comes three times later than that
        server.setDelayBeforeReply(Duration.ofMillis(3000));
        SmtpProvider impatient = new SmtpProvider(settings(server.port()).withTimeouts(
                Duration.ofSeconds(2), Duration.ofMillis(1000)), Clock.fixed(NOW, ZoneOffset.UTC));

        ProviderResponse r = impatient.send(mail("m1", "k1"), checkpoint);

        assertThat(r.status()).isEqualTo(Status.AMBIGUOUS);
        assertThat(r.errorType()).isEqualTo("java.net.SocketTimeoutException");
        assertThat(r.code()).isNull();
        assertThat(checkpoint.calls()).isEqualTo(1);
        // that is why it is ambiguous: the server took it after all
        assertThat(server.awaitReceived(1, Duration.ofSeconds(5))).isTrue();
        assertThat(server.received().get(0).messageId()).isEqualTo(expectedMessageId("k1"));
    }

    @Test
    void aConnectionDroppedAfterTheDotIsAmbiguous() throws Exception {
        try (ScriptedSmtp relay = new ScriptedSmtp("220 scripted ESMTP", line -> {
            String cmd = line.toUpperCase();
            if (cmd.startsWith("DATA")) {
                return "354 End data with <CR><LF>.<CR><LF>";
            }
            return ".".equals(line) ? null : "250 Ok"; // null: hang up without answering the dot
        })) {
            ProviderResponse r = provider(relay.port()).send(mail("m1", "k1"), checkpoint);

            assertThat(r.status()).isEqualTo(Status.AMBIGUOUS);
            assertThat(r.errorType()).isNotNull();
            assertThat(r.code()).isNull();
            assertThat(checkpoint.calls()).isEqualTo(1);
            assertThat(relay.lines()).contains(".");
        }
    }

    @Test
    void aRelayStoppedWhileTheCheckpointCommitsNeverGetsTheDotSoTheSendIsNotConnected() {
        // the chaos suite's relay outage: the relay stops (closing its connections mid-DATA) while the worker
        // commits its checkpoint; the dot is then never written, and the relay has nothing
        SmtpTestServer relay = SmtpTestServer.start();
        try {
            SendCheckpoint relayStopsMeanwhile = () -> {
                checkpoint.beforeIrrevocableWrite();
                relay.stopListening();
            };

            ProviderResponse r = provider(relay.port()).send(mail("m1", "k1"), relayStopsMeanwhile);

            assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
            assertThat(r.text()).contains("before the final dot");
            assertThat(checkpoint.calls()).isEqualTo(1);
            assertThat(relay.awaitAbandoned(1, Duration.ofSeconds(5))).isTrue();
            assertThat(relay.receivedCount()).isZero();
        } finally {
            relay.close();
        }
    }

    @Test
    void aRelayThatHangsUpAfter354IsNotConnectedAndNeverReadsTheDot() throws Exception {
        try (ScriptedSmtp relay = new ScriptedSmtp("220 scripted ESMTP", line ->
                line.toUpperCase().startsWith("DATA") ? "354 End data with <CR><LF>.<CR><LF>" + ScriptedSmtp.HANG_UP
                        : "250 Ok")) {
            ProviderResponse r = provider(relay.port()).send(mail("m1", "k1"), checkpoint);

            assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
            assertThat(r.text()).contains("closed the connection before the final dot");
            assertThat(checkpoint.calls()).isEqualTo(1);
            assertThat(relay.lines()).doesNotContain(".");
        }
    }

    @Test
    void aCheckpointThatThrowsMeansTheServerReceivesNothing() {
        IllegalStateException refused = new IllegalStateException("attempt could not be recorded");
        SendCheckpoint failing = () -> {
            throw refused;
        };

        long started = System.nanoTime();
        assertThatThrownBy(() -> provider().send(mail("m1", "k1"), failing)).isSameAs(refused);
        // promptly: no QUIT is written into the open DATA and then waited for until the read timeout (5 s)
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));

        // the server saw the DATA end without its final dot and discarded it
        assertThat(server.awaitAbandoned(1, Duration.ofSeconds(5))).isTrue();
        assertThat(server.receivedCount()).isZero();
        // and the connection is not left in a state that swallows the next mail
        assertThat(provider().send(mail("m2", "k2"), checkpoint).status()).isEqualTo(Status.ACCEPTED);
        assertThat(server.received()).extracting(ReceivedMail::messageId).containsExactly(expectedMessageId("k2"));
    }

    // ------------------------------------------------------------------ helpers

    private static SmtpSettings settings(int port) {
        return new SmtpSettings("127.0.0.1", port, SmtpSettings.StartTls.NONE, null, null,
                Duration.ofSeconds(2), Duration.ofSeconds(5), "client.mailroom.test", DOMAIN);
    }

    private static SmtpProvider provider(int port) {
        return new SmtpProvider(settings(port), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static SmtpProvider provider() {
        return provider(server.port());
    }

    private static OutboundMail mail(String messageId, String key) {
        return new OutboundMail(messageId, key, "Zoë Sender <sender@example.com>",
                List.of("to@example.com"), List.of("cc@example.com"), List.of("hidden@example.com"),
                "reply@example.com", "Grüße aus Köln", "Hallo Jürgen", "<p>Hallo Jürgen</p>",
                Map.of("X-Campaign", "spring-sale"), Map.of("order", "o-1"), "acme", "camp-1", "receipt");
    }

    private static OutboundMail withHeaders(OutboundMail m, Map<String, String> headers) {
        return new OutboundMail(m.messageId(), m.idempotencyKey(), m.from(), m.to(), m.cc(), m.bcc(), m.replyTo(),
                m.subject(), m.text(), m.html(), headers, m.metadata(), m.tenant(), m.campaignId(), m.category(),
                m.unsubscribe());
    }

    private static OutboundMail withUnsubscribe(OutboundMail m, Unsubscribe unsubscribe) {
        return new OutboundMail(m.messageId(), m.idempotencyKey(), m.from(), m.to(), m.cc(), m.bcc(), m.replyTo(),
                m.subject(), m.text(), m.html(), m.headers(), m.metadata(), m.tenant(), m.campaignId(), m.category(),
                unsubscribe);
    }

    /** Computed here, independently of the provider: first 32 hex digits of SHA-256 of the key. */
    private static String expectedMessageId(String key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "<" + HexFormat.of().formatHex(hash, 0, 16) + "@" + DOMAIN + ">";
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static MimeMessage parse(ReceivedMail m) throws Exception {
        return new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(m.raw()));
    }



    /**
     * A one-connection SMTP "server" that answers each command line with what the script says, for the
     * replies a real server library will not give (a 421 greeting, a 535, a hang-up mid-TLS or after the
     * dot). After a 354 it reads the message up to the dot and asks the script for the reply to ".".
     * A null reply hangs up without answering; a reply ending in {@link #HANG_UP} is sent, then hangs up.
     */
    private static final class ScriptedSmtp implements AutoCloseable {
        static final String HANG_UP = "\u0000hang-up";

        private final ServerSocket listener;
        private final String greeting;
        private final Function<String, String> script;
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final Thread thread;

        ScriptedSmtp(String greeting, Function<String, String> script) throws IOException {
            this.listener = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
            this.greeting = greeting;
            this.script = script;
            this.thread = new Thread(this::serveOne, "scripted-smtp");
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        List<String> lines() {
            return lines;
        }

        private void serveOne() {
            try (Socket s = listener.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = s.getOutputStream();
                if (!reply(out, greeting)) {
                    return;
                }
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                    String answer = script.apply(line);
                    if (!reply(out, answer)) {
                        return;
                    }
                    if (answer.startsWith("354")) {
                        String body = in.readLine();
                        while (body != null && !body.equals(".")) {
                            body = in.readLine();
                        }
                        if (body == null) {
                            return;
                        }
                        lines.add(".");
                        if (!reply(out, script.apply("."))) {
                            return;
                        }
                    }
                }
            } catch (IOException ignored) {
                // the client went away: that is what some scripts are about
            }
        }

        /** Writes the reply; false when the connection is to end here. */
        private static boolean reply(OutputStream out, String answer) throws IOException {
            if (answer == null) {
                return false;
            }
            boolean hangUp = answer.endsWith(HANG_UP);
            String text = hangUp ? answer.substring(0, answer.length() - HANG_UP.length()) : answer;
            out.write((text + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return !hangUp;
        }

        @Override
        public void close() throws Exception {
            listener.close();
            thread.join(2000);
        }
    }
}
