package dev.mailroom.alert;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Captures what a java.util.logging logger writes, for as long as the test runs. */
final class LogCapture extends Handler implements AutoCloseable {

    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger logger;

    LogCapture(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
        setLevel(Level.ALL);
        logger.addHandler(this);
    }

    List<LogRecord> at(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
