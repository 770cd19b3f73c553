/**
 * The naive baseline of {@code bench/run.sh} (issue 13, item 3): what a team would write without Mailroom, a
 * message-driven bean that receives in a JTA transaction, parses the JSON, makes one JPA insert, calls the same
 * provider and commits. {@code SendBench} packages these classes as {@code naive-mdb.war} and deploys it into the
 * benchmark's server only; they are test classes, never in Mailroom's WARs.
 */
package dev.mailroom.bench.naive;
