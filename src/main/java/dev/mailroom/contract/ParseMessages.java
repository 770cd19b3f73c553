package dev.mailroom.contract;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.ValidationMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link JobContract} tells a producer about a refused job, in words: a schema violation as {@code <path>: <what>}
 * without regular expressions or sub-schemas, a JSON error with its line and column, the list bounded to the detail's
 * size. Apart from the parser because reading the contract and explaining its violations change for different reasons.
 */
final class ParseMessages {

    private ParseMessages() {
    }

    static final String OWNED_HEADER = "is a header Mailroom sets itself (addressing and subject come "
            + "from the job's fields, Content-* and MIME-Version from its content, List-Unsubscribe* from unsubscribe); remove it "
            + "from headers";

    static final String NOT_A_DATE_TIME =
            "is not an RFC 3339 date-time with an offset (e.g. 2030-01-31T12:00:00Z)";

    /**
     * One violation as {@code <path>: <what>}, or null for messages that only repeat another one (the
     * per-branch "required" messages under the content-shape {@code oneOf}). The schema's own messages
     * are kept except where they would print a regular expression or a sub-schema at the reader.
     */
    static String describe(ValidationMessage m, JsonNode root) {
        String path = m.getInstanceLocation().toString();
        String location = m.getSchemaLocation().toString();
        String fragment = location.contains("#") ? location.substring(location.indexOf('#') + 1) : "";
        String type = m.getType();

        if (fragment.startsWith("/oneOf/") || fragment.startsWith("/$defs/attachment/oneOf/")) {
            return null;
        }
        String attachment = describeAttachment(fragment, path, root);
        if (attachment != null) {
            return attachment;
        }
        if (fragment.equals("/oneOf")) {
            boolean both = root.has("subject") && root.has("template_id");
            return displayPath(path) + ": " + (both
                    ? "has both rendered content (subject) and a template (template_id); a job carries exactly one"
                    : "has no content: give subject with text and/or html, or template_id with variables");
        }
        if (fragment.startsWith("/dependentSchemas/subject/")) {
            return displayPath(path) + ": rendered content (subject) needs text or html";
        }
        if (fragment.startsWith("/dependentSchemas/template_id/")) {
            return displayPath(path) + ": a template job (template_id) must not carry text or html";
        }
        if (fragment.equals("/$defs/noControlChars/not")) {
            return displayPath(path) + ": contains a control character (such as CR or LF)";
        }
        if (fragment.equals("/$defs/mailbox/pattern")) {
            return displayPath(path) + ": is not a mailbox (local@domain or Display Name <local@domain>)";
        }
        if (fragment.equals("/$defs/httpsUrl/pattern")) {
            return displayPath(path) + ": is not an https URL (https://..., without spaces, commas or angle brackets)";
        }
        if (fragment.equals("/$defs/address/pattern")) {
            return displayPath(path) + ": is not an address (local@domain, without a display name or mailto:)";
        }
        if ("format".equals(type) && (fragment.equals("/properties/expires_at/format")
                || fragment.equals("/properties/send_at/format"))) {
            return displayPath(path) + ": " + NOT_A_DATE_TIME;
        }
        if ("required".equals(type) && m.getProperty() != null) {
            return displayPath(path + "/" + escapePointer(m.getProperty())) + ": is required";
        }
        if ("additionalProperties".equals(type) && m.getProperty() != null) {
            return displayPath(path + "/" + escapePointer(abbreviate(m.getProperty(), 100)))
                    + ": is not a property of the job contract";
        }
        return displayPath(path) + ": " + m.getError();
    }

    /** An attachment's violation in words, or null if the message is not about an attachment's shape. */
    private static String describeAttachment(String fragment, String path, JsonNode root) {
        String what = switch (fragment) {
            case "/$defs/attachment/oneOf" -> {
                JsonNode a = root.at(path);
                yield a.has("content_base64") && a.has("url")
                        ? "has both content_base64 (inline) and url (by reference); an attachment is one or the other"
                        : "has no content: give content_base64 (inline) or url with sha256 and size (by reference)";
            }
            case "/$defs/attachment/dependentRequired" -> {
                JsonNode a = root.at(path);
                yield a.has("url")
                        ? "an attachment by reference (url) needs sha256 and size"
                        : "sha256 and size belong to an attachment by reference (url)";
            }
            case "/$defs/attachment/properties/filename/pattern" -> "contains a path separator (/ or \\)";
            case "/$defs/attachment/properties/content_type/pattern" ->
                    "is not a MIME type (type/subtype, optionally followed by ; name=value parameters)";
            case "/$defs/attachment/properties/content_base64/pattern" ->
                    "is not base64 (the standard alphabet A-Z a-z 0-9 + /, padded with =)";
            case "/$defs/attachment/properties/url/pattern" -> "is not an http or https URL without spaces";
            case "/$defs/attachment/properties/sha256/pattern" -> "is not a SHA-256 (64 lower-case hex digits)";
            default -> null;
        };
        return what == null ? null : displayPath(path) + ": " + what;
    }

    static String describe(JacksonException e) {
        String message = e.getOriginalMessage();
        JsonLocation at = e.getLocation();
        String where = at == null || at.getLineNr() < 0 ? ""
                : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
        return abbreviate(message == null ? e.getClass().getSimpleName() : message, 400) + where;
    }

    static String displayPath(String pointer) {
        return pointer.isEmpty() ? "/" : pointer;
    }

    static String escapePointer(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    /** Entries joined with "; ", cut at an entry boundary so the result fits the detail bound. */
    static String joinBounded(Iterable<String> entries) {
        List<String> all = new ArrayList<>();
        entries.forEach(all::add);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < all.size(); i++) {
            String next = (i == 0 ? "" : "; ") + all.get(i);
            String more = "; ... and " + (all.size() - i) + " more";
            boolean last = i == all.size() - 1;
            if (sb.length() + next.length() + (last ? 0 : more.length()) > JobContract.MAX_DETAIL_CHARS) {
                sb.append(more);
                break;
            }
            sb.append(next);
        }
        return sb.toString();
    }

    static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }
}
