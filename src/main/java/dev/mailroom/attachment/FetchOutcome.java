package dev.mailroom.attachment;

/** What fetching one attachment came to. */
public sealed interface FetchOutcome {

    /** The bytes, of the declared size and SHA-256. */
    record Fetched(byte[] content) implements FetchOutcome {
    }

    /** The source answered with a status that is not 2xx (nor a redirect that was followed). */
    record Answered(int status, String text) implements FetchOutcome {
    }

    /** The rule refused the URL or a redirect's target: nothing was requested there. */
    record Refused(String why) implements FetchOutcome {
    }

    /** Bytes came, but not the ones the job pinned: another size or another SHA-256. */
    record Mismatch(String why) implements FetchOutcome {
    }

    /** No answer: a timeout, a refused connection, a name that does not resolve, a broken stream. */
    record Unreachable(String errorType, String why) implements FetchOutcome {
    }
}
