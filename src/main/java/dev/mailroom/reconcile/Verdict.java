package dev.mailroom.reconcile;

/** What a verifier decided about one webhook call. */
public sealed interface Verdict {

    /** Genuine; {@code dedupeKey} is the provider's id for this delivery (SNS MessageId, svix-id, Mailgun token…). */
    record Accepted(String dedupeKey) implements Verdict {
    }

    /** Not taken; {@code detail} is for the log and the 4xx answer and never contains the body. */
    record Refused(Reason reason, String detail) implements Verdict {
    }

    enum Reason {
        /** The body is larger than the profile accepts; checked before any parsing or crypto. */
        oversized,
        /** A header or field the scheme needs is absent or unreadable. */
        malformed,
        /** The signature or credentials do not match. */
        bad_signature,
        /** The signed timestamp is outside the tolerance window. */
        stale,
        /** This delivery id was already accepted. */
        replayed,
        /** SNS: the topic is not on the allow-list. */
        topic_not_allowed,
        /** SNS: the signing certificate URL is not https on sns.&lt;region&gt;.amazonaws.com, or the certificate is unusable. */
        bad_certificate
    }

    static Verdict refused(Reason reason, String detail) {
        return new Refused(reason, detail);
    }

    default boolean accepted() {
        return this instanceof Accepted;
    }
}
