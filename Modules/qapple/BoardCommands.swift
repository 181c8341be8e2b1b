import ArgumentParser
import Domain
import Foundation
import ToolSupport

/// `qapple board ...`
struct Board: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The bulletin board: list, search, show, post, comment, like, delete.",
    subcommands: [
      List.self, Search.self, Show.self, Post.self, CommentCommand.self, Like.self,
      Delete.self,
    ],
    defaultSubcommand: List.self)

  /// The table of a page of posts.
  static func table(_ posts: [BoardPost]) -> TextTable {
    var table = TextTable([
      .whole("ID"), .init("AUTHOR", maxWidth: 14), .init("LIKES", maxWidth: 6),
      .init("COMMENTS", maxWidth: 8), .init("WHEN", maxWidth: 16), .init("POST", maxWidth: 56),
    ])
    for post in posts {
      table.append([
        post.id.rawValue, post.authorName + (post.isMine ? " (me)" : ""),
        "\(post.likeCount)\(post.isLiked ? "*" : "")", "\(post.commentCount)",
        TextFormat.dateTime(post.createdAt), post.content,
      ])
    }
    return table
  }

  /// A post and a page of its comments as `qapple board show` (and `qapple open`) prints them;
  /// the paging hint is the caller's, on stderr.
  static func detailText(_ post: BoardPost, comments: [Comment]) -> String {
    var lines = [
      "\(post.authorName)\(post.isMine ? " (me)" : "") · \(TextFormat.dateTime(post.createdAt)) · id \(post.id)",
      post.content,
      "\(post.likeCount) like\(post.likeCount == 1 ? "" : "s")\(post.isLiked ? " (you like it)" : "") · "
        + "\(post.commentCount) comment\(post.commentCount == 1 ? "" : "s")",
    ]
    if !comments.isEmpty {
      var table = TextTable([
        .whole("ID"), .init("AUTHOR", maxWidth: 16), .init("LIKES", maxWidth: 6),
        .init("WHEN", maxWidth: 16), .init("COMMENT", maxWidth: 60),
      ])
      for comment in comments {
        table.append([
          comment.id.rawValue, comment.authorName + (comment.isMine ? " (me)" : ""),
          "\(comment.likeCount)\(comment.isLiked ? "*" : "")",
          TextFormat.dateTime(comment.createdAt), comment.content,
        ])
      }
      lines += ["", table.render()]
    }
    return lines.joined(separator: "\n")
  }

  /// `qapple board list`
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List posts, newest first.")

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let posts = try await connection.repositories.board.fetchPosts(page.request)
        try ToolOutput(output).emitList(ListOutput(posts, PostOutput.init), empty: "No posts yet.")
        { Board.table(posts.items) }
      }
    }
  }

  /// `qapple board search QUERY`
  struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Find posts whose text contains QUERY (case-insensitive).")

    @Argument(help: "The text to look for (\(TextRule.search.lengthText)).")
    var query: String

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let posts = try await connection.repositories.board.searchPosts(query, page.request)
        try ToolOutput(output).emitList(
          ListOutput(posts, PostOutput.init), empty: "No post contains \"\(query)\"."
        ) { Board.table(posts.items) }
      }
    }
  }

  /// `qapple board show ID`
  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show a post and its comments (oldest first).")

    @Argument(help: "The post id.")
    var id: String

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let board = connection.repositories.board
        let post = try await board.fetchPost(BoardPost.ID(id))
        let comments = try await board.fetchComments(post.id, page.request)
        let detail = PostDetailOutput(
          post: PostOutput(post), comments: ListOutput(comments, CommentOutput.init))
        let printer = ToolOutput(output)
        try printer.emit(detail) { Board.detailText(post, comments: comments.items) }
        if let cursor = comments.nextCursor {
          printer.note("(more comments: add --cursor \(cursor.rawValue))")
        }
      }
    }
  }

  /// `qapple board post TEXT`
  struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Write a post (\(TextRule.post.lengthText); anonymous unless --no-anonymous).")

    @Argument(help: "The text.")
    var text: String

    @Flag(inversion: .prefixedNo, help: "Hide your nickname (shown as \"Anonymous\").")
    var anonymous = true

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let draft: PostDraft
      do {
        draft = try PostDraft(content: text, isAnonymous: anonymous).validated()
      } catch {
        throw ToolError("invalid post: \(error.description)", exitCode: .usage)
      }
      try await server.withConnection(tool: .member) { connection in
        let post = try await connection.repositories.board.createPost(draft)
        try ToolOutput(output).emit(PostOutput(post)) {
          "Posted as \(post.authorName) (post \(post.id))."
        }
      }
    }
  }

  /// `qapple board comment POST TEXT`
  struct CommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "comment",
      abstract:
        "Comment on a post (\(TextRule.comment.lengthText); anonymous unless --no-anonymous).")

    @Argument(help: "The post id.")
    var post: String

    @Argument(help: "The text.")
    var text: String

    @Flag(inversion: .prefixedNo, help: "Hide your nickname (shown as \"Anonymous N\").")
    var anonymous = true

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let draft: CommentDraft
      do {
        draft = try CommentDraft(content: text, isAnonymous: anonymous).validated()
      } catch {
        throw ToolError("invalid comment: \(error.description)", exitCode: .usage)
      }
      try await server.withConnection(tool: .member) { connection in
        let comment = try await connection.repositories.board.createComment(
          BoardPost.ID(post), draft)
        try ToolOutput(output).emit(CommentOutput(comment)) {
          "Commented as \(comment.authorName) (comment \(comment.id))."
        }
      }
    }
  }

  /// `qapple board like ID [--comment] [--undo]`
  struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Like a post (or with --comment a comment); --undo takes the like back.")

    @Argument(help: "The post id, or the comment id with --comment.")
    var id: String

    @Flag(help: "ID is a comment.")
    var comment = false

    @Flag(help: "Unlike instead.")
    var undo = false

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let board = connection.repositories.board
        let target: ReportTarget = comment ? .comment(Comment.ID(id)) : .post(BoardPost.ID(id))
        let state =
          comment
          ? try await board.setCommentLike(Comment.ID(id), !undo)
          : try await board.setPostLike(BoardPost.ID(id), !undo)
        try ToolOutput(output).emit(LikeOutput(target: target.description, state: state)) {
          "\(state.isLiked ? "Liked" : "Not liked:") \(target) (\(state.likeCount) "
            + "like\(state.likeCount == 1 ? "" : "s"))."
        }
      }
    }
  }

  /// `qapple board delete ID [--comment]`
  struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Delete your post (with its comments) or, with --comment, your comment.")

    @Argument(help: "The post id, or the comment id with --comment.")
    var id: String

    @Flag(help: "ID is a comment.")
    var comment = false

    @OptionGroup var server: ServerOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let board = connection.repositories.board
        if comment {
          try await board.deleteComment(Comment.ID(id))
          StandardStreams.write("Deleted comment \(id).")
        } else {
          try await board.deletePost(BoardPost.ID(id))
          StandardStreams.write("Deleted post \(id) and its comments.")
        }
      }
    }
  }
}
