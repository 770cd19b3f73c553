package dev.mailroom.provider.smtp;

import dev.mailroom.provider.SendCheckpoint;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/**
 * An SMTP transport that marks the point of no return: {@link #finishData()} writes the final
 * "." of DATA, before which the relay must discard the transaction (RFC 5321 4.1.1.4), so the
 * checkpoint runs right there. If the checkpoint throws, the transaction is abandoned: no QUIT is
 * written (inside DATA it would only be more message text) and the socket is just closed, so the
 * relay sees the connection end without the dot.
 *
 * <p>Passing the checkpoint is not yet passing the point of no return: the checkpoint commits to the
 * database, which takes a while, and a relay that stops meanwhile (it closes its connections mid-DATA)
 * never reads the dot. So after the checkpoint the transport looks whether the relay already ended the
 * connection or spoke out of turn (a relay says nothing between 354 and the dot), and the dot counts as
 * written only when its write succeeded: in both cases the relay cannot have the mail and the outcome is
 * {@code NOT_CONNECTED}, not {@code AMBIGUOUS}. Only a failure after the dot was written stays ambiguous.
 */
final class CheckpointingSmtpTransport extends SMTPTransport {
    private final SendCheckpoint checkpoint;
    private volatile boolean checkpointRan;
    private volatile boolean abandoned;
    private volatile boolean writingDot;
    private volatile boolean dotWritten;
    private volatile Socket relaySocket;

    CheckpointingSmtpTransport(Session session, URLName url, SendCheckpoint checkpoint) {
        super(session, url);
        this.checkpoint = checkpoint;
    }

    /** The plain socket of this connection (null: not ours, nothing is looked at before the dot). */
    void watch(Socket socket) {
        this.relaySocket = socket;
    }

    @Override
    protected void finishData() throws IOException, MessagingException {
        try {
            checkpoint.beforeIrrevocableWrite();
        } catch (Throwable t) {
            abandoned = true;
            throw t;
        }
        checkpointRan = true;
        String ended = relayEndedTransaction(relaySocket);
        if (ended != null) {
            abandoned = true;
            throw new MessagingException("the relay " + ended + " before the final dot was written",
                    new EOFException(ended));
        }
        writingDot = true;
        try {
            super.finishData();
        } finally {
            writingDot = false;
        }
    }

    @Override
    protected void sendCommand(String cmd) throws MessagingException {
        if (abandoned) {
            throw new MessagingException("transaction abandoned before the final dot; not sending " + cmd);
        }
        super.sendCommand(cmd);
        // the write (and flush) of the dot returned: from here on the relay may have the mail
        if (writingDot) {
            dotWritten = true;
        }
    }

    /** Whether the checkpoint ran. */
    boolean checkpointRan() {
        return checkpointRan;
    }

    /** Whether the final dot was written, so the relay may have accepted the mail. */
    boolean dotMayHaveReachedRelay() {
        return checkpointRan && dotWritten;
    }

    /**
     * Why the relay is no longer waiting for our dot ("closed the connection", "reset the connection",
     * "spoke out of turn"), or null when it is quiet, as it should be between 354 and the dot. Reads at most
     * one byte, with a 1 ms timeout; a byte read is never given back, the transaction is over then anyway.
     */
    static String relayEndedTransaction(Socket socket) {
        if (socket == null || socket.isClosed()) {
            return null;
        }
        try {
            int timeout = socket.getSoTimeout();
            socket.setSoTimeout(1);
            try {
                return socket.getInputStream().read() < 0 ? "closed the connection" : "spoke out of turn";
            } finally {
                socket.setSoTimeout(timeout);
            }
        } catch (SocketTimeoutException quiet) {
            return null;
        } catch (IOException e) {
            return "reset the connection (" + e.getMessage() + ")";
        }
    }
}
