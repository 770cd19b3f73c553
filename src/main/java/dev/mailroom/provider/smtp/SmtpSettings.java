package dev.mailroom.provider.smtp;

import java.time.Duration;
import java.util.Objects;

/**
 * Where and how {@link SmtpProvider} talks SMTP. One connection is opened per mail, so the
 * timeouts bound every step of one send: {@code connectTimeout} the TCP connect, {@code readTimeout}
 * each wait for a server reply and each socket write.
 *
 * @param host            the relay's host name or address
 * @param port            the relay's port (25, 587, or a test server's ephemeral port)
 * @param startTls        whether to upgrade the connection with STARTTLS
 * @param username        the AUTH user, or null to send without authenticating
 * @param password        the AUTH password (ignored without a username); never printed by {@link #toString()}
 * @param connectTimeout  bound on the TCP connect
 * @param readTimeout     bound on each server reply and each socket write
 * @param heloName        the name given in EHLO/HELO, or null for the local host name
 * @param messageIdDomain the right-hand side of the stable {@code Message-ID} (ours, not the relay's)
 */
public record SmtpSettings(
        String host,
        int port,
        StartTls startTls,
        String username,
        String password,
        Duration connectTimeout,
        Duration readTimeout,
        String heloName,
        String messageIdDomain) {

    /** How STARTTLS is used. */
    public enum StartTls {
        /** Never upgrade (loopback relays, tests). */
        NONE,
        /** Upgrade when the server offers it, otherwise send in clear. */
        OPTIONAL,
        /** Upgrade or do not send at all: a server without STARTTLS gives {@code NOT_CONNECTED}. */
        REQUIRED
    }

    public SmtpSettings {
        requireText(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        Objects.requireNonNull(startTls, "startTls");
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(readTimeout, "readTimeout");
        requireText(messageIdDomain, "messageIdDomain");
        if (!messageIdDomain.matches("[A-Za-z0-9.\\-\\[\\]:]+")) {
            throw new IllegalArgumentException("messageIdDomain is not a domain: " + messageIdDomain);
        }
        if (heloName != null && heloName.isBlank()) {
            heloName = null;
        }
    }

    /** Plain SMTP without authentication, as used against a loopback relay or a test server. */
    public static SmtpSettings plain(String host, int port, Duration connectTimeout, Duration readTimeout,
                                     String messageIdDomain) {
        return new SmtpSettings(host, port, StartTls.NONE, null, null, connectTimeout, readTimeout, null,
                messageIdDomain);
    }

    /** Returns a copy with other timeouts. */
    public SmtpSettings withTimeouts(Duration connect, Duration read) {
        return new SmtpSettings(host, port, startTls, username, password, connect, read, heloName, messageIdDomain);
    }

    /** Whether to authenticate: only with a user name. */
    public boolean authenticates() {
        return username != null && !username.isEmpty();
    }

    /** Like the record's own, but the password never reaches a log. */
    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", startTls=" + startTls
                + ", username=" + username + ", password=" + (password == null ? "null" : "****")
                + ", connectTimeout=" + connectTimeout + ", readTimeout=" + readTimeout
                + ", heloName=" + heloName + ", messageIdDomain=" + messageIdDomain + "]";
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }
}
