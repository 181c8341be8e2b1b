import Domain
import Foundation

// The notification inbox. Notifications are created by events in the other areas and never for
// a user's own actions (callers skip the actor before calling `notify`).

extension BackendState {
  /// Adds a notification to `recipient`'s inbox (nothing if the account is gone).
  mutating func notify(_ recipient: User.ID, _ kind: NotificationKind, message: String) {
    guard users[recipient] != nil else { return }
    let record = NotificationRecord(
      id: makeID("n"), recipientID: recipient, kind: kind, message: message, createdAt: now,
      order: nextOrder())
    notifications[record.id] = record
  }

  func notificationView(_ record: NotificationRecord) -> AppNotification {
    AppNotification(
      id: record.id, kind: record.kind, message: record.message, isRead: record.isRead,
      createdAt: record.createdAt)
  }

  func fetchNotifications(
    of userID: User.ID, page: PageRequest
  ) throws(DomainError) -> Page<AppNotification> {
    try paginate(
      notifications.values.filter { $0.recipientID == userID },
      by: { .date($0.createdAt, $0.order) }, .descending, page
    ).map(notificationView)
  }

  func unreadCount(of userID: User.ID) -> Int {
    notifications.values.count(where: { $0.recipientID == userID && !$0.isRead })
  }

  /// Marks one of the user's own notifications; someone else's answers `notFound`.
  mutating func markNotificationRead(
    _ id: AppNotification.ID, by userID: User.ID
  ) throws(DomainError) {
    guard notifications[id]?.recipientID == userID else { throw .notFound }
    notifications[id]?.isRead = true
  }

  mutating func markAllNotificationsRead(of userID: User.ID) {
    for (id, record) in notifications where record.recipientID == userID && !record.isRead {
      notifications[id]?.isRead = true
    }
  }
}
