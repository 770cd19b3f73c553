package dev.mailroom.platform.settings;

/**
 * A setting whose value cannot be used: it names the key, the value as given and the syntax that is accepted, so
 * the one log line an operator reads says what to change.
 */
public class InvalidSetting extends IllegalArgumentException {

    private final String key;
    private final String value;
    private final String accepted;

    public InvalidSetting(String key, String value, String accepted) {
        super(key + "='" + value + "' is refused: expected " + accepted);
        this.key = key;
        this.value = value;
        this.accepted = accepted;
    }

    public String key() {
        return key;
    }

    public String value() {
        return value;
    }

    public String accepted() {
        return accepted;
    }
}
