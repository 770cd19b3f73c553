package dev.mailroom.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the contract says of attachments beyond their schema: inline content that is base64 by its alphabet but not
 * decodable (a length that is no multiple of four, padding in the middle) breaks the contract.
 */
public final class AttachmentRule {

    /** The schema's alphabet check; content outside it is the schema's violation, not reported twice here. */
    private static final Pattern ALPHABET = Pattern.compile("[A-Za-z0-9+/]*={0,2}");

    private AttachmentRule() {
    }

    /** One violation per inline attachment whose {@code content_base64} does not decode. */
    static List<String> undecodable(JsonNode attachments) {
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < attachments.size(); i++) {
            JsonNode content = attachments.get(i).get("content_base64");
            if (content == null || !content.isTextual() || !ALPHABET.matcher(content.textValue()).matches()) {
                continue;
            }
            String text = content.textValue();
            String problem = null;
            if (text.length() % 4 != 0) {
                // the JDK decoder accepts unpadded input; the contract asks for padded, as every encoder writes it
                problem = "its length " + text.length() + " is no multiple of 4";
            } else {
                try {
                    Base64.getDecoder().decode(text);
                } catch (IllegalArgumentException e) {
                    problem = ParseMessages.abbreviate(String.valueOf(e.getMessage()), 100);
                }
            }
            if (problem != null) {
                violations.add("/attachments/" + i + "/content_base64: does not decode as base64 (" + problem + ")");
            }
        }
        return violations;
    }
}
