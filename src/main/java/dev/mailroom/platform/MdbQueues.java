package dev.mailroom.platform;

import java.util.List;
import java.util.Map;

/**
 * Which of this deployment's message-driven beans consumes which send queue, as the deployment itself knows it (the
 * send path implements it). A server that cannot say which queue an MDB's activation consumes (Open Liberty keeps
 * that in its activation specs) asks this.
 */
public interface MdbQueues {

    /** MDB names (the beans' names) per send queue. */
    Map<String, List<String>> mdbsByQueue();
}
