/**
 * Settings: the one duration syntax ({@link dev.mailroom.platform.settings.DurationText}, also for
 * {@code @ConfigProperty Duration} through {@link dev.mailroom.platform.settings.DurationConverter}), typed reads that
 * name the key of a bad value ({@link dev.mailroom.platform.settings.SettingsReader},
 * {@link dev.mailroom.platform.settings.InvalidSetting}), and the check at deployment that every concern's settings
 * can be used ({@link dev.mailroom.platform.settings.SettingsGate} over each
 * {@link dev.mailroom.platform.settings.CheckedAtBoot}).
 *
 * <p>May use: nothing of Mailroom's.
 */
package dev.mailroom.platform.settings;
