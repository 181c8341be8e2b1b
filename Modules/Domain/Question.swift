import Foundation

/// The question of the day: everyone answers it anonymously.
public struct Question: Identifiable, Hashable, Sendable {
  /// The typed identifier of a question.
  public typealias ID = Identifier<Question>

  /// The question's identifier.
  public var id: ID
  /// The question text.
  public var content: String
  /// The day it is (or was) the question of the day.
  public var publishDate: CalendarDay
  /// How many answers it has.
  public var answerCount: Int
  /// The signed-in user's answer, if any.
  public var myAnswer: Answer?

  /// Creates a question.
  public init(
    id: ID, content: String, publishDate: CalendarDay, answerCount: Int = 0,
    myAnswer: Answer? = nil
  ) {
    self.id = id
    self.content = content
    self.publishDate = publishDate
    self.answerCount = answerCount
    self.myAnswer = myAnswer
  }

  /// Others' answers are visible only once you answered.
  public var canSeeAnswers: Bool { myAnswer != nil }
}

/// An answer to a daily question.
public struct Answer: Identifiable, Hashable, Sendable {
  /// The typed identifier of an answer.
  public typealias ID = Identifier<Answer>

  /// The answer's identifier.
  public var id: ID
  /// The question it answers.
  public var questionID: Question.ID
  /// The text, 1-250 characters.
  public var content: String
  /// The nickname shown with the answer.
  public var authorNickname: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// When it was written.
  public var createdAt: Date

  /// Creates an answer.
  public init(
    id: ID, questionID: Question.ID, content: String, authorNickname: String, isMine: Bool,
    createdAt: Date
  ) {
    self.id = id
    self.questionID = questionID
    self.content = content
    self.authorNickname = authorNickname
    self.isMine = isMine
    self.createdAt = createdAt
  }

  /// Checks an answer draft (1-250 characters) and returns the text to send.
  public static func validate(content: String) throws(ValidationError) -> String {
    try TextRule.answer.validate(content)
  }
}
