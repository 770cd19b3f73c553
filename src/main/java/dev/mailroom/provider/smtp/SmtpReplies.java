package dev.mailroom.provider.smtp;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;
import org.eclipse.angus.mail.util.SocketConnectException;

/**
 * A failed SMTP send read as a {@link ProviderResponse}: the relay's reply verbatim with its codes, or the fault
 * and whether the mail may have reached the relay. Reading Angus's exceptions changes apart from building mails.
 */
final class SmtpReplies {

    /** RFC 3463 enhanced code right after the reply code ("550 5.1.1 ..."), the usual place. */
    private static final Pattern LEADING_ENHANCED = Pattern.compile("^\\d{3}[ -]([245]\\.\\d{1,3}\\.\\d{1,3})\\b");
    /** RFC 3463 enhanced code anywhere in the text, for relays that put it elsewhere. */
    private static final Pattern ANY_ENHANCED = Pattern.compile("\\b[245]\\.\\d{1,3}\\.\\d{1,3}\\b");

    private SmtpReplies() {
    }

    /**
     * What a failed send means: the relay's definite answer (the first reply of 400 or more, or the code it gave
     * before the transaction began), or a fault, {@code AMBIGUOUS} only when the final dot may have reached it.
     */
    static ProviderResponse outcomeOf(MessagingException e, CheckpointingSmtpTransport transport) {
        MessagingException reply = firstReply(e);
        if (reply != null) {
            return rejected(String.valueOf(replyCode(reply)), reply.getMessage());
        }
        int lastCode = transport.getLastReturnCode();
        boolean answered = lastCode >= 400 && !transport.checkpointRan();
        if (e instanceof AuthenticationFailedException) {
            // a 535 is the relay's definite refusal; "no common mechanism" and the like are not answers
            return answered ? rejected(String.valueOf(lastCode), firstNonNull(e.getMessage(),
                    transport.getLastServerResponse())) : fault(Status.NOT_CONNECTED, e, e);
        }
        Throwable networkFault = networkFault(e);
        if (networkFault == null && answered) {
            // e.g. a 421/554 greeting or a refused EHLO+HELO: no SMTP*Exception, but the relay said no
            return rejected(String.valueOf(lastCode), transport.getLastServerResponse());
        }
        Status status = transport.dotMayHaveReachedRelay() ? Status.AMBIGUOUS : Status.NOT_CONNECTED;
        return fault(status, e, networkFault != null ? networkFault : e);
    }

    /**
     * The first definite SMTP reply in the exception chain. Angus chains one
     * {@link SMTPAddressFailedException} per failed recipient behind a plain SendFailedException, in
     * RCPT order, so "first" is the first recipient that failed. A return code of -1 is Angus's
     * "[EOF]": the connection closed, which is not an answer; nor is an unexpected 2xx/3xx.
     */
    private static MessagingException firstReply(MessagingException e) {
        for (Throwable t : chain(e)) {
            if (t instanceof MessagingException me && replyCode(me) >= 400) {
                return me;
            }
        }
        return null;
    }

    private static int replyCode(MessagingException e) {
        if (e instanceof SMTPSendFailedException s) {
            return s.getReturnCode();
        } else if (e instanceof SMTPAddressFailedException a) {
            return a.getReturnCode();
        } else if (e instanceof SMTPSenderFailedException f) {
            return f.getReturnCode();
        }
        return -1;
    }

    /** The IO fault behind the failure, unwrapping Angus's SocketConnectException to what it carries. */
    private static Throwable networkFault(MessagingException e) {
        for (Throwable t : chain(e)) {
            if (t instanceof IOException && !(t instanceof SocketConnectException)) {
                return t;
            }
        }
        return null;
    }

    private static List<Throwable> chain(Throwable start) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = start; t != null && chain.size() < 32 && !chain.contains(t); ) {
            chain.add(t);
            t = t instanceof MessagingException me ? firstNonNull(me.getNextException(), me.getCause()) : t.getCause();
        }
        return chain;
    }

    private static ProviderResponse rejected(String code, String text) {
        String verbatim = trimEnd(text);
        return new ProviderResponse(Status.REJECTED, SmtpProvider.NAME, code, enhancedCode(verbatim), verbatim, null, null, null);
    }

    private static ProviderResponse fault(Status status, Throwable thrown, Throwable cause) {
        return new ProviderResponse(status, SmtpProvider.NAME, null, null, describe(thrown, cause), null, null,
                cause.getClass().getName());
    }

    /** The exception's message and, when it does not already say it, the cause's ("Connection refused"). */
    private static String describe(Throwable thrown, Throwable cause) {
        String text = thrown.getMessage() == null ? thrown.getClass().getName() : thrown.getMessage();
        if (cause != thrown && cause.getMessage() != null && !text.contains(cause.getMessage())) {
            text = text + ": " + cause;
        }
        return text;
    }

    /** The RFC 3463 enhanced status code in a reply text ("5.1.1"), or null. */
    static String enhancedCode(String replyText) {
        if (replyText == null) {
            return null;
        }
        Matcher leading = LEADING_ENHANCED.matcher(replyText);
        if (leading.find()) {
            return leading.group(1);
        }
        Matcher any = ANY_ENHANCED.matcher(replyText);
        return any.find() ? any.group() : null;
    }

    static String trimEnd(String s) {
        return s == null ? null : s.stripTrailing();
    }

    private static <T> T firstNonNull(T a, T b) {
        return a != null ? a : b;
    }
}
