package dev.mailroom.platform.settings;

/**
 * A concern whose settings are read and validated once, at deployment: {@link SettingsGate} calls every bean of this
 * type before Mailroom takes a job, and a failure stops the deployment. Implementations build their settings records
 * here (and keep them), so no value is first read by a job.
 */
public interface CheckedAtBoot {

    /**
     * Reads every setting of this concern (for every configured queue and provider).
     *
     * @throws IllegalArgumentException ({@link InvalidSetting} where possible) naming the key of a value that cannot
     *                                  be used
     */
    void checkSettings();
}
