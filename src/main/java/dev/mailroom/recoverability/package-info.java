/**
 * Recoverability: classifying a failure (FailureClass) and deciding what to do about it, as a pure
 * function of the failure, the attempt history, the policy and the validity window. Until it lands,
 * a failed provider call rolls the delivery back and the broker's redelivery limit decides.
 */
package dev.mailroom.recoverability;
