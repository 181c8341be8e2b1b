import Domain
import Foundation

// Analytics: each client buffers events; a flush uploads them in batches of at most 100.

extension BackendState {
  /// Buffers an event on the client (no network, so it works offline and signed out).
  mutating func track(_ event: AnalyticsEvent, on client: FakeClient.ID) {
    clients[client, default: ClientRecord()].analyticsBuffer.append(event)
  }

  /// Uploads the client's buffer; returns how many events were accepted.
  mutating func flushAnalytics(of client: FakeClient.ID, userID: User.ID) -> Int {
    let buffer = clients[client]?.analyticsBuffer ?? []
    var accepted = 0
    for start in stride(from: 0, to: buffer.count, by: AnalyticsBatch.maximumSize) {
      let batch = buffer[start..<min(start + AnalyticsBatch.maximumSize, buffer.count)]
      analyticsEvents += batch.map { RecordedAnalyticsEvent(userID: userID, event: $0) }
      accepted += batch.count
    }
    clients[client]?.analyticsBuffer = []
    return accepted
  }
}
